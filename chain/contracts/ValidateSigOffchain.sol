// SPDX-License-Identifier: CC0-1.0
pragma solidity 0.8.19;

/// The wallet side of ERC-1271.
interface ERC1271 {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}

/// ValidateSigOffchain checks a signature as ERC-1271 and ERC-6492 say,
/// without being deployed anywhere: its creation code, with (signer, hash,
/// signature) abi-encoded after it, is the data of an eth_call that has no
/// `to`. The constructor returns one byte instead of code, two bits:
/// VALID when signer accepts signature for hash (the whole word of
/// ERC-1271's magic value 0x1626ba7e), DEPLOYED when code was at signer
/// before the check. A signature wrapped by ERC-6492 (abi.encode(factory,
/// factoryCalldata, innerSignature) followed by the 32-byte magic suffix)
/// first deploys the wallet through its factory when no code is at signer
/// yet; an eth_call is never mined, so nothing stays deployed. A wallet
/// that is deployed already is asked as it is now, without its factory.
///
/// It never reverts on what a signer sends: a malformed wrapper, a factory
/// or a wallet that reverts, runs out of gas, hits an invalid opcode or
/// answers megabytes is a refusal. So an eth_call of it that fails is the
/// endpoint's failure, not the signature's.
contract ValidateSigOffchain {
    bytes32 private constant SUFFIX = 0x6492649264926492649264926492649264926492649264926492649264926492;
    uint8 private constant VALID = 1;
    uint8 private constant DEPLOYED = 2;

    constructor(address signer, bytes32 hash, bytes memory signature) {
        uint8 answer = check(signer, hash, signature);
        assembly {
            mstore(0, answer)
            return(31, 1)
        }
    }

    function check(address signer, bytes32 hash, bytes memory signature) private returns (uint8) {
        uint8 deployed = signer.code.length == 0 ? 0 : DEPLOYED;
        if (wrapped(signature)) {
            (bool ok, address factory, bytes memory factoryCalldata, bytes memory inner) = unwrap(signature);
            if (!ok || (deployed == 0 && !run(factory, factoryCalldata))) {
                return deployed;
            }
            signature = inner;
        }
        if (signer.code.length == 0 || !accepts(signer, hash, signature)) {
            return deployed;
        }
        return deployed | VALID;
    }

    /// accepts asks signer's isValidSignature and reads only the first word
    /// of its answer, copying nothing more: a wallet that answers megabytes
    /// pays for them with its own gas.
    function accepts(address signer, bytes32 hash, bytes memory signature) private view returns (bool valid) {
        bytes memory data = abi.encodeCall(ERC1271.isValidSignature, (hash, signature));
        assembly {
            let ok := staticcall(gas(), signer, add(data, 32), mload(data), 0, 32)
            valid :=
                and(
                    and(ok, iszero(lt(returndatasize(), 32))),
                    eq(mload(0), 0x1626ba7e00000000000000000000000000000000000000000000000000000000)
                )
        }
    }

    /// run calls factory with data, copying nothing of its answer.
    function run(address factory, bytes memory data) private returns (bool ok) {
        assembly {
            ok := call(gas(), factory, 0, add(data, 32), mload(data), 0, 0)
        }
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

    /// unwrap decodes ERC-6492's wrapper, without its suffix, when it is
    /// well formed; it checks first what abi.decode would revert on.
    function unwrap(bytes memory signature)
        private
        pure
        returns (bool ok, address factory, bytes memory factoryCalldata, bytes memory inner)
    {
        uint256 n = signature.length - 32;
        if (n < 96) {
            return (false, address(0), "", "");
        }
        uint256 head;
        uint256 first;
        uint256 second;
        assembly {
            head := mload(add(signature, 32))
            first := mload(add(signature, 64))
            second := mload(add(signature, 96))
        }
        if (head >> 160 != 0 || !fits(signature, n, first) || !fits(signature, n, second)) {
            return (false, address(0), "", "");
        }
        // Drop the suffix in place: the rest is the abi-encoded wrapper.
        assembly {
            mstore(signature, n)
        }
        (factory, factoryCalldata, inner) = abi.decode(signature, (address, bytes, bytes));
        return (true, factory, factoryCalldata, inner);
    }

    /// fits says whether a bytes value at offset lies within the first n
    /// bytes of signature's content: its length word and all its bytes.
    function fits(bytes memory signature, uint256 n, uint256 offset) private pure returns (bool) {
        if (offset > n - 32) {
            return false;
        }
        uint256 length;
        assembly {
            length := mload(add(add(signature, 32), offset))
        }
        return length <= n - 32 - offset;
    }
}
