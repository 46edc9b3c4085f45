// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC1363Receiver} from "@openzeppelin/contracts/interfaces/IERC1363Receiver.sol";
import {IERC1363Spender} from "@openzeppelin/contracts/interfaces/IERC1363Spender.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title ERC1363Token
/// @notice QuestBench test token "ERC1363"/"E1363", 18 decimals, 1,000,000e18 minted to `holder`.
/// ERC-20 + ERC-1363 (`transferAndCall`, `transferFromAndCall`, `approveAndCall`, each with and without data) +
/// EIP-2612 `permit`. Storage layout of the reference: 0 name, 1 symbol, 2 decimals, 3 totalSupply, 4 balanceOf,
/// 5 allowance, 6 nonces. No immutables: `DOMAIN_SEPARATOR` is computed from the current chain id and address, so the
/// code keeps working after it is moved to another address.
/// ERC-1363 callbacks: when the recipient/spender has code it must return the ERC-1363 magic value, otherwise the
/// call reverts; an address without code (EOA) gets no callback and the call succeeds (as in the reference, so that
/// `transferAndCall` to a plain account works). Transfers to the zero address are allowed (the reference's "burn").
contract ERC1363Token {
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => uint256) public nonces;

    bytes32 public constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(address holder) {
        name = "ERC1363";
        symbol = "E1363";
        decimals = 18;
        totalSupply = 1_000_000e18;
        balanceOf[holder] = 1_000_000e18;
        emit Transfer(address(0), holder, 1_000_000e18);
    }

    /// EIP-712 domain separator: name "ERC1363", version "1", current chain id, this address.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("1"), block.chainid, address(this)));
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0xb0202a11 /* IERC1363 */ || interfaceId == 0x01ffc9a7 /* IERC165 */;
    }

    function transfer(address to, uint256 value) public returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) public returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) public returns (bool) {
        _spend(from, msg.sender, value);
        _transfer(from, to, value);
        return true;
    }

    function transferAndCall(address to, uint256 value) external returns (bool) {
        return transferAndCall(to, value, "");
    }

    function transferAndCall(address to, uint256 value, bytes memory data) public returns (bool) {
        _transfer(msg.sender, to, value);
        _checkReceived(msg.sender, to, value, data);
        return true;
    }

    function transferFromAndCall(address from, address to, uint256 value) external returns (bool) {
        return transferFromAndCall(from, to, value, "");
    }

    function transferFromAndCall(address from, address to, uint256 value, bytes memory data) public returns (bool) {
        _spend(from, msg.sender, value);
        _transfer(from, to, value);
        _checkReceived(from, to, value, data);
        return true;
    }

    function approveAndCall(address spender, uint256 value) external returns (bool) {
        return approveAndCall(spender, value, "");
    }

    function approveAndCall(address spender, uint256 value, bytes memory data) public returns (bool) {
        _approve(msg.sender, spender, value);
        if (spender.code.length > 0) {
            bytes4 ret = IERC1363Spender(spender).onApprovalReceived(msg.sender, value, data);
            require(ret == IERC1363Spender.onApprovalReceived.selector, "ERC1363: spender rejected the approval");
        }
        return true;
    }

    /// EIP-2612 permit.
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        require(block.timestamp <= deadline, "ERC1363: permit expired");
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonces[owner]++, deadline));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        require(err == ECDSA.RecoverError.NoError && signer == owner && owner != address(0), "ERC1363: invalid permit signature");
        _approve(owner, spender, value);
    }

    function _checkReceived(address from, address to, uint256 value, bytes memory data) private {
        if (to.code.length == 0) return;
        bytes4 ret = IERC1363Receiver(to).onTransferReceived(msg.sender, from, value, data);
        require(ret == IERC1363Receiver.onTransferReceived.selector, "ERC1363: receiver rejected the transfer");
    }

    function _transfer(address from, address to, uint256 value) private {
        uint256 bal = balanceOf[from];
        require(bal >= value, "ERC1363: transfer amount exceeds balance");
        unchecked {
            balanceOf[from] = bal - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _approve(address owner, address spender, uint256 value) private {
        allowance[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    function _spend(address owner, address spender, uint256 value) private {
        uint256 current = allowance[owner][spender];
        if (current != type(uint256).max) {
            require(current >= value, "ERC1363: insufficient allowance");
            unchecked {
                allowance[owner][spender] = current - value;
            }
        }
    }
}

/// @title ERC1363ReceiverMock
/// @notice Test helper: accepts ERC-1363 transfers and approvals (returns the magic values) and records the last call;
/// reverts when `data` is "reject".
contract ERC1363ReceiverMock is IERC1363Receiver, IERC1363Spender {
    address public lastOperator;
    address public lastFrom;
    uint256 public lastValue;
    bytes public lastData;
    uint256 public calls;

    function onTransferReceived(address operator, address from, uint256 value, bytes calldata data)
        external
        returns (bytes4)
    {
        require(keccak256(data) != keccak256("reject"), "ERC1363ReceiverMock: rejected");
        lastOperator = operator;
        lastFrom = from;
        lastValue = value;
        lastData = data;
        calls++;
        return IERC1363Receiver.onTransferReceived.selector;
    }

    function onApprovalReceived(address owner, uint256 value, bytes calldata data) external returns (bytes4) {
        require(keccak256(data) != keccak256("reject"), "ERC1363ReceiverMock: rejected");
        lastFrom = owner;
        lastValue = value;
        lastData = data;
        calls++;
        return IERC1363Spender.onApprovalReceived.selector;
    }
}
