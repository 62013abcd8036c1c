// verify.js drives the wallet-verification page. With an EIP-1193 browser
// wallet (window.ethereum) it shows the "Sign with your wallet" button: a
// click asks for the account, checks it is the linked one, asks the wallet
// to personal_sign the message (an EIP-4361 sign-in to this site when the
// bot has PUBLIC_URL, which the wallet checks against this page's origin)
// and posts the signature and the message to this page's URL.
// Without a wallet the page keeps its /verify instructions. No framework,
// no external resources: the page's CSP allows scripts from itself only.
"use strict";

(function () {
  var root = document.getElementById("verify");
  if (!root) {
    return;
  }
  var expected = (root.getAttribute("data-address") || "").toLowerCase();
  var messageHex = root.getAttribute("data-message-hex");
  var signButton = document.getElementById("sign");
  var statusLine = document.getElementById("status");

  function say(text, kind) {
    statusLine.textContent = text;
    statusLine.className = "status " + (kind || "");
  }

  // showWallet switches the page to the button when a wallet is injected.
  // Some wallets inject after the page loads and then fire
  // "ethereum#initialized", so the page listens for that too.
  function showWallet() {
    var eth = window.ethereum;
    if (!eth || typeof eth.request !== "function") {
      return false;
    }
    document.getElementById("no-wallet").hidden = true;
    document.getElementById("wallet").hidden = false;
    return true;
  }

  function walletError(err) {
    if (err && err.code === 4001) {
      return "You declined the request in your wallet. Press the button to try again.";
    }
    var detail = (err && err.message) || "unknown error";
    return "Your wallet could not sign: " + detail + ". Press the button to try again.";
  }

  // messageText decodes the message's hex (UTF-8 bytes) to the text the
  // wallet signs, which the page posts beside the signature so the bot can
  // check it term by term.
  function messageText() {
    var hex = (messageHex || "").replace(/^0x/, "");
    var bytes = new Uint8Array(hex.length / 2);
    for (var i = 0; i < bytes.length; i++) {
      bytes[i] = parseInt(hex.substr(2 * i, 2), 16);
    }
    return new TextDecoder().decode(bytes);
  }

  // submit posts the signature and the signed message, and shows the
  // bot's answer.
  async function submit(signature) {
    var res;
    try {
      res = await fetch(window.location.pathname, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ signature: signature, message: messageText() }),
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch (e) {
      say("Could not reach the bot. Check your connection and press the button again.", "error");
      return;
    }
    var body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    if (body && body.ok) {
      document.getElementById("sign").hidden = true;
      say("Verified" + (body.chain ? " on " + body.chain : "") + ". You can close this page and go back to the chat.", "ok");
      return;
    }
    say((body && body.error) || "The bot answered with an error (" + res.status + "). Please try again.", "error");
  }

  async function sign() {
    var eth = window.ethereum;
    var signature;
    try {
      say("Open your wallet and approve the request.");
      var accounts = await eth.request({ method: "eth_requestAccounts" });
      var account = (accounts && accounts[0]) || "";
      if (!account) {
        say("Your wallet shared no account. Unlock it and press the button again.", "error");
        return;
      }
      if (expected && account.toLowerCase() !== expected) {
        say("Your wallet is using account " + account + ". Switch it to " + expected + " and press the button again.", "error");
        return;
      }
      say("Sign the message in your wallet.");
      signature = await eth.request({ method: "personal_sign", params: [messageHex, account] });
    } catch (err) {
      say(walletError(err), "error");
      return;
    }
    say("Checking the signature…");
    await submit(signature);
  }

  signButton.addEventListener("click", function () {
    signButton.disabled = true;
    sign().finally(function () {
      signButton.disabled = false;
    });
  });

  // copyMessage copies the exact message; where the clipboard API is not
  // allowed it selects the text so the member can copy it by hand.
  function copyMessage() {
    var pre = document.getElementById("message");
    var copied = document.getElementById("copied");
    function selectText() {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      var ok = false;
      try {
        ok = document.execCommand("copy");
      } catch (e) {
        ok = false;
      }
      copied.textContent = ok ? "Copied." : "Selected: copy it with your device's copy command.";
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(pre.textContent).then(function () {
        copied.textContent = "Copied.";
      }, selectText);
    } else {
      selectText();
    }
  }

  var copyButton = document.getElementById("copy");
  copyButton.hidden = false;
  copyButton.addEventListener("click", copyMessage);

  if (!showWallet()) {
    window.addEventListener("ethereum#initialized", showWallet, { once: true });
  }
})();
