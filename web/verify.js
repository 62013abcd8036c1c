// verify.js drives the wallet-verification page. It finds the browser
// wallets: those that announce themselves (EIP-6963), else the injected
// window.ethereum (EIP-1193). With one, it shows the "Sign with ..."
// button; with several, one button per wallet, and the member chooses. A
// click asks the wallet for the account, checks it is the linked one, asks
// it to personal_sign the message (an EIP-4361 sign-in to this site when
// the bot has PUBLIC_URL, which the wallet checks against this page's
// origin) and posts the signature and the message to this page's URL.
// Without a wallet, a phone gets links that reopen this page in a wallet
// app's browser, a desktop the page's address as a QR code for a wallet
// app's scanner; the /verify instructions stay below. No framework, no
// external resources: the page's CSP allows scripts from itself only.
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

  // maxWallets caps the wallets listed: any script or extension can
  // announce one.
  var maxWallets = 10;
  // maxIcon caps an announced icon's data: URI (its length); a larger
  // icon is dropped, the wallet kept.
  var maxIcon = 64 * 1024;
  // announced are the EIP-6963 wallets: {uuid, name, rdns, icon, provider}.
  var announced = [];
  // chosen is the provider the "Sign with" button uses.
  var chosen = null;
  // verified is set once the bot accepted a signature: then nothing
  // changes the page any more.
  var verified = false;
  // busy is set while a wallet signs: no other signing starts, and the
  // wallets announced meanwhile are shown once it ends (renderLater).
  var busy = false;
  var renderLater = false;

  // say shows text in the status line; once verified, the line keeps
  // saying so.
  function say(text, kind) {
    if (verified) {
      return;
    }
    statusLine.textContent = text;
    statusLine.className = "status " + (kind || "");
  }

  // isPhone tells a phone or tablet, whose member needs a wallet app's
  // browser, from a desktop, whose member can scan a QR code.
  function isPhone() {
    var uad = navigator.userAgentData;
    if (uad && uad.mobile === true) {
      return true;
    }
    var ua = navigator.userAgent || "";
    if (/Android|iPhone|iPad|iPod|Mobile|Opera Mini|IEMobile/i.test(ua)) {
      return true;
    }
    // iPadOS Safari calls itself a Mac; only its touch screen tells.
    return /Macintosh/.test(ua) && navigator.maxTouchPoints > 1;
  }

  // cleanName makes an announced name (hostile text) at most max
  // characters (code points: never half an emoji) and without the
  // characters that reorder text around it.
  function cleanName(name, max) {
    if (typeof name !== "string") {
      return "";
    }
    var clean = name.replace(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, "").replace(/\s+/g, " ").trim();
    return Array.from(clean).slice(0, max).join("").trim();
  }

  // onAnnounce keeps an EIP-6963 announcement: once per uuid, at most
  // maxWallets, an icon only as a data:image/ URI (the CSP admits no
  // other image from elsewhere) of at most maxIcon.
  function onAnnounce(event) {
    var d = event && event.detail;
    if (!d || !d.info || !d.provider || typeof d.provider.request !== "function") {
      return;
    }
    var uuid = typeof d.info.uuid === "string" ? d.info.uuid : "";
    if (!uuid || announced.length >= maxWallets) {
      return;
    }
    for (var i = 0; i < announced.length; i++) {
      if (announced[i].uuid === uuid) {
        return;
      }
    }
    var icon = d.info.icon;
    if (typeof icon !== "string" || icon.length > maxIcon || !/^data:image\//i.test(icon)) {
      icon = "";
    }
    announced.push({
      uuid: uuid,
      name: cleanName(d.info.name, 40) || "Wallet " + (announced.length + 1),
      // The rdns (reverse domain) tells apart two wallets of one name.
      rdns: cleanName(d.info.rdns, 100),
      icon: icon,
      provider: d.provider,
    });
    render();
  }

  // choiceButton is the button of an announced wallet.
  function choiceButton(w) {
    var b = document.createElement("button");
    b.type = "button";
    if (w.icon) {
      var img = document.createElement("img");
      img.alt = "";
      img.src = w.icon;
      b.appendChild(img);
    }
    var label = document.createElement("span");
    label.textContent = w.name;
    b.appendChild(label);
    if (w.rdns) {
      var rdns = document.createElement("small");
      rdns.textContent = w.rdns;
      b.appendChild(rdns);
    }
    b.addEventListener("click", function () {
      run(w.provider);
    });
    return b;
  }

  // render shows the way to sign that the wallets found allow; while a
  // wallet signs, it waits for the end (a button of a wallet announced
  // meanwhile would start a second signing).
  function render() {
    if (verified) {
      return;
    }
    if (busy) {
      renderLater = true;
      return;
    }
    var eth = window.ethereum;
    var several = announced.length > 1;
    var one = announced.length === 1 ? announced[0] : null;
    if (!one && !several && eth && typeof eth.request === "function") {
      one = { name: "", provider: eth };
    }
    document.getElementById("choose").hidden = !several;
    document.getElementById("wallet").hidden = !one;
    document.getElementById("no-wallet").hidden = several || !!one;
    if (several) {
      var list = document.getElementById("wallets");
      list.textContent = "";
      announced.forEach(function (w) {
        var li = document.createElement("li");
        li.appendChild(choiceButton(w));
        list.appendChild(li);
      });
    } else if (one) {
      chosen = one.provider;
      signButton.textContent = one.name ? "Sign with " + one.name : "Sign with your wallet";
    } else {
      // Without PUBLIC_URL the page has neither the apps nor the QR code.
      var phone = isPhone();
      var apps = document.getElementById("apps");
      if (apps) {
        apps.hidden = !phone;
      }
      var scan = document.getElementById("scan");
      if (scan) {
        scan.hidden = phone;
      }
    }
  }

  // walletError is the message for what a wallet threw (hostile: its
  // getters may throw too).
  function walletError(err) {
    var detail = "";
    try {
      if (err && err.code === 4001) {
        return "You declined the request in your wallet. Press the button to try again.";
      }
      detail = cleanName(err && err.message, 200);
    } catch (e) {
      detail = "";
    }
    return "Your wallet could not sign: " + (detail || "unknown error") + ". Press the button to try again.";
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
    if (verified) {
      return;
    }
    var body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    if (body && body.ok) {
      document.getElementById("wallet").hidden = true;
      document.getElementById("choose").hidden = true;
      say("Verified" + (body.chain ? " on " + body.chain : "") + ". You can close this page and go back to the chat.", "ok");
      verified = true;
      return;
    }
    say((body && body.error) || "The bot answered with an error (" + res.status + "). Please try again.", "error");
  }

  // sign has the wallet eth sign the message with the linked account.
  async function sign(eth) {
    var signature;
    try {
      say("Open your wallet and approve the request.");
      var accounts = await eth.request({ method: "eth_requestAccounts" });
      var account = (accounts && accounts[0]) || "";
      if (typeof account !== "string" || !account) {
        say("Your wallet shared no account. Unlock it and press the button again.", "error");
        return;
      }
      if (expected && account.toLowerCase() !== expected) {
        say("Your wallet is using account " + account + ". Switch it to " + expected + " and press the button again.", "error");
        return;
      }
      if (verified) {
        return;
      }
      say("Sign the message in your wallet.");
      signature = await eth.request({ method: "personal_sign", params: [messageHex, account] });
    } catch (err) {
      say(walletError(err), "error");
      return;
    }
    if (verified) {
      return;
    }
    say("Checking the signature…");
    await submit(signature);
  }

  // run signs with eth, unless a wallet is signing already or the page
  // is verified; the page's buttons are disabled meanwhile, and the
  // wallets announced meanwhile shown after.
  function run(eth) {
    if (busy || verified) {
      return;
    }
    busy = true;
    var buttons = root.querySelectorAll("#wallet button, #choose button");
    buttons.forEach(function (b) {
      b.disabled = true;
    });
    sign(eth)
      .catch(function () {
        say("Your wallet could not sign: unknown error. Press the button to try again.", "error");
      })
      .finally(function () {
        busy = false;
        buttons.forEach(function (b) {
          b.disabled = false;
        });
        if (renderLater) {
          renderLater = false;
          render();
        }
      });
  }

  signButton.addEventListener("click", function () {
    if (chosen) {
      run(chosen);
    }
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

  // EIP-6963: listen first, then ask the wallets to announce themselves;
  // wallets that load later announce on their own. Some wallets inject
  // window.ethereum late and then fire "ethereum#initialized".
  window.addEventListener("eip6963:announceProvider", onAnnounce);
  window.addEventListener("ethereum#initialized", render, { once: true });
  render();
  window.dispatchEvent(new Event("eip6963:requestProvider"));
})();
