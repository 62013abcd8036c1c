// SPDX-License-Identifier: CC0-1.0
pragma solidity 0.8.19;

/// OwnedWallet is the smallest ERC-1271 wallet: it accepts a hash signed
/// by its owner's key (raw ECDSA over the hash, r | s | v).
contract OwnedWallet {
    address public immutable owner;

    constructor(address owner_) {
        require(owner_ != address(0), "no owner");
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 65) {
            return 0xffffffff;
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (ecrecover(hash, v, r, s) != owner) {
            return 0xffffffff;
        }
        return 0x1626ba7e;
    }
}

/// WalletFactory deploys OwnedWallets with CREATE2, as ERC-4337 account
/// factories do: a wallet's address is known before it exists, and a
/// signature of a wallet not deployed yet is checked through ERC-6492.
contract WalletFactory {
    function deploy(address owner, bytes32 salt) external returns (OwnedWallet) {
        return new OwnedWallet{salt: salt}(owner);
    }

    function addressOf(address owner, bytes32 salt) external view returns (address) {
        bytes32 code = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, code)))));
    }
}

/// WrongMagic is a contract wallet that answers every signature with a
/// value other than ERC-1271's magic value 0x1626ba7e.
contract WrongMagic {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        return 0x12345678;
    }
}
