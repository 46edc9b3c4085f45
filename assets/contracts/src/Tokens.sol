// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @title OwnerSlot0
/// @notice Puts the token owner in storage slot 0, before OpenZeppelin's ERC20 variables, so that the layout becomes
/// the BEP-20 one of BSC-USD/BUSD/CAKE: 0 `_owner`, 1 balances, 2 allowances, 3 totalSupply, 4 name, 5 symbol.
abstract contract OwnerSlot0 {
    address internal _owner;
}

/// @title OwnedToken
/// @notice ERC-20 with an owner in slot 0, BEP-20 extras (`getOwner`, `increaseAllowance`, `decreaseAllowance`) and an
/// owner-only `mint`. Decimals are an immutable.
abstract contract OwnedToken is OwnerSlot0, ERC20 {
    uint8 private immutable _decimals;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    constructor(uint8 decimals_, uint256 supply, address holder) {
        require(holder != address(0), "token: holder is the zero address");
        _decimals = decimals_;
        _owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
        _mint(holder, supply);
    }

    modifier onlyOwner() {
        require(msg.sender == _owner, "Ownable: caller is not the owner");
        _;
    }

    function decimals() public view virtual override returns (uint8) {
        return _decimals;
    }

    function owner() external view returns (address) {
        return _owner;
    }

    /// BEP-20 spelling of `owner()`.
    function getOwner() external view returns (address) {
        return _owner;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "Ownable: new owner is the zero address");
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }

    function mint(address to, uint256 amount) external onlyOwner returns (bool) {
        _mint(to, amount);
        return true;
    }

    function increaseAllowance(address spender, uint256 addedValue) external returns (bool) {
        _approve(msg.sender, spender, allowance(msg.sender, spender) + addedValue);
        return true;
    }

    function decreaseAllowance(address spender, uint256 subtractedValue) external returns (bool) {
        uint256 current = allowance(msg.sender, spender);
        require(current >= subtractedValue, "BEP20: decreased allowance below zero");
        unchecked {
            _approve(msg.sender, spender, current - subtractedValue);
        }
        return true;
    }
}

/// @title BEP20Token
/// @notice BSC profile USDT ("Tether USD"), BUSD and CAKE stand-in with the mainnet BEP-20 storage layout
/// (balances in slot 1, allowances in slot 2).
contract BEP20Token is OwnedToken {
    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply, address holder)
        ERC20(name_, symbol_)
        OwnedToken(decimals_, supply, holder)
    {}
}

/// @title CanonToken
/// @notice Ethereum profile ERC-20 (USDC, DAI, WBTC, LINK, UNI, AAVE) with EIP-2612 `permit`; same owner/balance/
/// allowance layout as `BEP20Token`.
contract CanonToken is OwnedToken, ERC20Permit {
    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply, address holder)
        ERC20(name_, symbol_)
        ERC20Permit(name_)
        OwnedToken(decimals_, supply, holder)
    {}

    function decimals() public view override(ERC20, OwnedToken) returns (uint8) {
        return OwnedToken.decimals();
    }
}

/// @title TetherToken
/// @notice Ethereum-profile USDT with mainnet TetherToken semantics: `transfer`, `transferFrom` and `approve` return
/// nothing, `approve` from a non-zero allowance to another non-zero allowance reverts, `decimals` is a `uint256`.
/// Storage follows mainnet USDT: 0 owner (+ paused), 1 _totalSupply, 2 balances, 3 basisPointsRate, 4 maximumFee,
/// 5 allowed, 6 isBlackListed, 7 name, 8 symbol, 9 decimals, 10 upgradedAddress (+ deprecated).
contract TetherToken {
    address public owner;
    bool public paused;
    uint256 public _totalSupply;
    mapping(address => uint256) internal balances;
    uint256 public basisPointsRate;
    uint256 public maximumFee;
    mapping(address => mapping(address => uint256)) internal allowed;
    mapping(address => bool) public isBlackListed;
    string public name;
    string public symbol;
    uint256 public decimals;
    address public upgradedAddress;
    bool public deprecated;

    uint256 private constant MAX_UINT = type(uint256).max;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Issue(uint256 amount);
    event Redeem(uint256 amount);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply, address holder) {
        require(holder != address(0), "TetherToken: holder is the zero address");
        owner = msg.sender;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        _totalSupply = supply;
        balances[holder] = supply;
        emit Transfer(address(0), holder, supply);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "TetherToken: caller is not the owner");
        _;
    }

    modifier whenNotPaused() {
        require(!paused, "TetherToken: paused");
        _;
    }

    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    function balanceOf(address who) external view returns (uint256) {
        return balances[who];
    }

    function allowance(address owner_, address spender) external view returns (uint256 remaining) {
        return allowed[owner_][spender];
    }

    /// No return value, as on mainnet.
    function transfer(address to, uint256 value) external whenNotPaused {
        require(!isBlackListed[msg.sender], "TetherToken: sender is blacklisted");
        _move(msg.sender, to, value);
    }

    /// No return value, as on mainnet. An allowance of 2^256-1 is not decreased.
    function transferFrom(address from, address to, uint256 value) external whenNotPaused {
        require(!isBlackListed[from], "TetherToken: sender is blacklisted");
        uint256 allowance_ = allowed[from][msg.sender];
        require(allowance_ >= value, "TetherToken: transfer amount exceeds allowance");
        if (allowance_ < MAX_UINT) allowed[from][msg.sender] = allowance_ - value;
        _move(from, to, value);
    }

    /// No return value. Changing a non-zero allowance to another non-zero value reverts (set it to 0 first).
    function approve(address spender, uint256 value) external {
        require(!(value != 0 && allowed[msg.sender][spender] != 0), "TetherToken: approve from non-zero to non-zero allowance");
        allowed[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
    }

    /// Owner mints `amount` to itself (mainnet name).
    function issue(uint256 amount) external onlyOwner {
        balances[owner] += amount;
        _totalSupply += amount;
        emit Issue(amount);
        emit Transfer(address(0), owner, amount);
    }

    /// Owner burns `amount` from its own balance (mainnet name).
    function redeem(uint256 amount) external onlyOwner {
        require(balances[owner] >= amount, "TetherToken: redeem exceeds owner balance");
        balances[owner] -= amount;
        _totalSupply -= amount;
        emit Redeem(amount);
        emit Transfer(owner, address(0), amount);
    }

    function pause() external onlyOwner {
        paused = true;
    }

    function unpause() external onlyOwner {
        paused = false;
    }

    function _move(address from, address to, uint256 value) private {
        require(balances[from] >= value, "TetherToken: transfer amount exceeds balance");
        unchecked {
            balances[from] -= value;
        }
        balances[to] += value;
        emit Transfer(from, to, value);
    }
}
