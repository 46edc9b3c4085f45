// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title CometUSDC
/// @notice Stand-in for the Compound V3 USDC market (Comet) at 0xc3d688B66703497DAA19211EEdff47f25384cdc3 with the
/// real signatures of `supply`, `supplyTo`, `withdraw`, `withdrawTo`, `balanceOf`, `borrowBalanceOf`,
/// `collateralBalanceOf`, `baseToken`, `totalSupply`, `totalBorrow`, `decimals`. Base asset USDC (6 decimals);
/// collateral WETH (18 decimals) and WBTC (8 decimals). Simplifications: interest is 0 (principal = present value);
/// withdrawing more base than supplied borrows it and needs sum(collateral * price * borrowCollateralFactor) >= debt;
/// prices are fixed (USD, 8 decimals; defaults WETH 3000, WBTC 60000, USDC 1) and the owner may change them with
/// `setCollateral`; there are no liquidations, no `allow`/`supplyFrom`/`withdrawFrom`, no rewards.
/// Storage: 0 owner, 1 baseBalance (int256), 2 userCollateral, 3 assets, 4 collateralAssets, 5 totalSupplyBase,
/// 6 totalBorrowBase, 7 totalsCollateral. `baseToken` is an immutable.
contract CometUSDC {
    using SafeERC20 for IERC20;

    struct AssetConfig {
        bool accepted;
        uint8 decimals;
        uint64 borrowCollateralFactor; // 1e18 = 100 %
        uint256 price; // USD, 8 decimals
    }

    address public immutable baseToken;
    uint8 private constant BASE_DECIMALS = 6;

    address public owner;
    mapping(address => int256) internal baseBalance;
    mapping(address => mapping(address => uint256)) internal userCollateral; // account => asset => amount
    mapping(address => AssetConfig) public assets;
    address[] internal collateralAssets;
    uint256 internal totalSupplyBase;
    uint256 internal totalBorrowBase;
    mapping(address => uint256) public totalsCollateral;

    event Supply(address indexed from, address indexed dst, uint256 amount);
    event Withdraw(address indexed src, address indexed to, uint256 amount);
    event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount);
    event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount);

    /// `usdc` is the base token (6 decimals); `weth` (18 decimals) and `wbtc` (8 decimals) become collateral with
    /// borrow collateral factors 82.5 % and 70 %. Does not call the tokens, so they may be deployed later.
    constructor(address usdc, address weth, address wbtc) {
        require(usdc != address(0) && weth != address(0) && wbtc != address(0), "Comet: zero address");
        baseToken = usdc;
        owner = msg.sender;
        _setCollateral(weth, 18, 3000e8, 0.825e18);
        _setCollateral(wbtc, 8, 60000e8, 0.7e18);
    }

    function name() external pure returns (string memory) {
        return "Compound USDC";
    }

    function symbol() external pure returns (string memory) {
        return "cUSDCv3";
    }

    function decimals() external pure returns (uint8) {
        return BASE_DECIMALS;
    }

    /// Owner: accept `asset` as collateral (or update it) with a USD price (8 decimals) and a borrow collateral
    /// factor (1e18 = 100 %).
    function setCollateral(address asset, uint8 assetDecimals, uint256 priceUsd8, uint64 borrowCollateralFactor) external {
        require(msg.sender == owner, "Comet: caller is not the owner");
        _setCollateral(asset, assetDecimals, priceUsd8, borrowCollateralFactor);
    }

    function supply(address asset, uint256 amount) external {
        _supply(msg.sender, msg.sender, asset, amount);
    }

    function supplyTo(address dst, address asset, uint256 amount) external {
        _supply(msg.sender, dst, asset, amount);
    }

    function withdraw(address asset, uint256 amount) external {
        _withdraw(msg.sender, msg.sender, asset, amount);
    }

    function withdrawTo(address to, address asset, uint256 amount) external {
        _withdraw(msg.sender, to, asset, amount);
    }

    /// Supplied base (USDC) of `account`; 0 when it is borrowing.
    function balanceOf(address account) public view returns (uint256) {
        int256 b = baseBalance[account];
        return b > 0 ? uint256(b) : 0;
    }

    /// Borrowed base (USDC) of `account`.
    function borrowBalanceOf(address account) public view returns (uint256) {
        int256 b = baseBalance[account];
        return b < 0 ? uint256(-b) : 0;
    }

    function collateralBalanceOf(address account, address asset) external view returns (uint128) {
        return uint128(userCollateral[account][asset]);
    }

    function totalSupply() external view returns (uint256) {
        return totalSupplyBase;
    }

    function totalBorrow() external view returns (uint256) {
        return totalBorrowBase;
    }

    function getCollateralAssets() external view returns (address[] memory) {
        return collateralAssets;
    }

    /// True when `account`'s collateral covers its base debt.
    function isBorrowCollateralized(address account) public view returns (bool) {
        uint256 debt = borrowBalanceOf(account);
        if (debt == 0) return true;
        uint256 liquidity;
        for (uint256 i = 0; i < collateralAssets.length; i++) {
            address asset = collateralAssets[i];
            uint256 amt = userCollateral[account][asset];
            if (amt == 0) continue;
            AssetConfig storage c = assets[asset];
            liquidity += amt * c.price / (10 ** c.decimals) * c.borrowCollateralFactor / 1e18;
        }
        uint256 debtValue = debt * 1e8 / (10 ** BASE_DECIMALS);
        return liquidity >= debtValue;
    }

    function _setCollateral(address asset, uint8 assetDecimals, uint256 priceUsd8, uint64 factor) private {
        require(asset != address(0), "Comet: zero address");
        require(asset != baseToken, "Comet: base token cannot be collateral");
        require(priceUsd8 > 0, "Comet: price must be greater than zero");
        require(factor < 1e18, "Comet: borrow collateral factor must be below 100%");
        if (!assets[asset].accepted) collateralAssets.push(asset);
        assets[asset] = AssetConfig(true, assetDecimals, factor, priceUsd8);
    }

    function _supply(address from, address dst, address asset, uint256 amount) private {
        require(dst != address(0), "Comet: dst is the zero address");
        if (asset == baseToken) {
            if (amount == type(uint256).max) amount = borrowBalanceOf(dst);
            require(amount > 0, "Comet: amount must be greater than zero");
            require(amount <= uint256(type(int256).max), "Comet: amount too large");
            IERC20(asset).safeTransferFrom(from, address(this), amount);
            int256 before = baseBalance[dst];
            int256 after_ = before + int256(amount);
            baseBalance[dst] = after_;
            _updateTotals(before, after_);
            emit Supply(from, dst, amount);
        } else {
            require(assets[asset].accepted, "Comet: asset is not supported");
            require(amount > 0, "Comet: amount must be greater than zero");
            IERC20(asset).safeTransferFrom(from, address(this), amount);
            userCollateral[dst][asset] += amount;
            totalsCollateral[asset] += amount;
            emit SupplyCollateral(from, dst, asset, amount);
        }
    }

    function _withdraw(address src, address to, address asset, uint256 amount) private {
        require(to != address(0), "Comet: to is the zero address");
        if (asset == baseToken) {
            if (amount == type(uint256).max) amount = balanceOf(src);
            require(amount > 0, "Comet: amount must be greater than zero");
            require(amount <= uint256(type(int256).max), "Comet: amount too large");
            int256 before = baseBalance[src];
            int256 after_ = before - int256(amount);
            baseBalance[src] = after_;
            _updateTotals(before, after_);
            if (after_ < 0) require(isBorrowCollateralized(src), "Comet: not collateralized (NotCollateralized)");
            require(IERC20(asset).balanceOf(address(this)) >= amount, "Comet: insufficient reserves");
            IERC20(asset).safeTransfer(to, amount);
            emit Withdraw(src, to, amount);
        } else {
            require(assets[asset].accepted, "Comet: asset is not supported");
            require(amount > 0, "Comet: amount must be greater than zero");
            uint256 bal = userCollateral[src][asset];
            require(bal >= amount, "Comet: withdraw amount exceeds collateral balance");
            userCollateral[src][asset] = bal - amount;
            totalsCollateral[asset] -= amount;
            require(isBorrowCollateralized(src), "Comet: not collateralized (NotCollateralized)");
            IERC20(asset).safeTransfer(to, amount);
            emit WithdrawCollateral(src, to, asset, amount);
        }
    }

    function _updateTotals(int256 before, int256 after_) private {
        uint256 supBefore = before > 0 ? uint256(before) : 0;
        uint256 borBefore = before < 0 ? uint256(-before) : 0;
        uint256 supAfter = after_ > 0 ? uint256(after_) : 0;
        uint256 borAfter = after_ < 0 ? uint256(-after_) : 0;
        totalSupplyBase = totalSupplyBase - supBefore + supAfter;
        totalBorrowBase = totalBorrowBase - borBefore + borAfter;
    }
}
