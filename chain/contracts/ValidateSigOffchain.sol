// SPDX-License-Identifier: CC0-1.0
pragma solidity 0.8.19;

/// The wallet side of ERC-1271.
interface ERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// ValidateSigOffchain checks a signature as ERC-6492 says, without being
/// deployed anywhere: its creation code, with (signer, hash, signature)
/// abi-encoded after it, is the data of an eth_call that has no `to`. The
/// constructor returns one byte instead of code: 0x01 when signer accepts
/// signature for hash (ERC-1271's magic value 0x1626ba7e), 0x00 when it
/// does not. A signature wrapped by ERC-6492 (abi.encode(factory,
/// factoryCalldata, innerSignature) followed by the 32-byte magic suffix)
/// first deploys the wallet through its factory when no code is at signer
/// yet; an eth_call is never mined, so nothing stays deployed. A wallet
/// that is deployed already is asked as it is now, without its factory.
contract ValidateSigOffchain {
    bytes32 private constant SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;
    bytes4 private constant MAGIC = 0x1626ba7e;

    constructor(address signer, bytes32 hash, bytes memory signature) {
        bool valid = check(signer, hash, signature);
        assembly {
            mstore(0, valid)
            return(31, 1)
        }
    }

    function check(address signer, bytes32 hash, bytes memory signature) private returns (bool) {
        if (wrapped(signature)) {
            // Drop the suffix in place: the rest is the abi-encoded wrapper.
            assembly {
                mstore(signature, sub(mload(signature), 32))
            }
            (address factory, bytes memory factoryCalldata, bytes memory inner) =
                abi.decode(signature, (address, bytes, bytes));
            if (signer.code.length == 0) {
                (bool deployed,) = factory.call(factoryCalldata);
                if (!deployed) {
                    return false;
                }
            }
            signature = inner;
        }
        if (signer.code.length == 0) {
            return false;
        }
        (bool ok, bytes memory answer) =
            signer.staticcall(abi.encodeCall(ERC1271.isValidSignature, (hash, signature)));
        // The whole word: a contract that echoes its calldata answers the
        // selector, which is the magic value, followed by the hash.
        return ok && answer.length >= 32 && abi.decode(answer, (bytes32)) == bytes32(MAGIC);
    }

    function wrapped(bytes memory signature) private pure returns (bool) {
        if (signature.length < 32) {
            return false;
        }
        bytes32 tail;
        assembly {
            tail := mload(add(signature, mload(signature)))
        }
        return tail == SUFFIX;
    }
}
