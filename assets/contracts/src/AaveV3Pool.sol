// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title AaveV3Pool
/// @notice Stand-in for the Aave V3 Pool at 0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2 with the real signatures of
/// `supply`, `deposit`, `withdraw`, `borrow`, `repay`, `setUserUseReserveAsCollateral`, `getUserAccountData` and
/// `getReservesList`. Simplifications (documented in assets/contracts/README.md):
/// - interest rates are 0: supplied and borrowed balances do not grow; only variable-rate borrowing (mode 2) exists;
/// - prices are fixed by the owner (`setReserve`/`setAssetPrice`), in USD with 8 decimals like Aave's base currency;
/// - a borrow needs `totalDebtBase + value <= sum(collateral value * ltv)`; a withdraw or collateral switch-off that
///   leaves debt needs the health factor (collateral * liquidation threshold / debt) to stay >= 1;
/// - liquidity is the pool's own token balance (suppliers' funds and anything transferred in);
/// - no credit delegation: `borrow` requires `onBehalfOf == msg.sender`; no liquidations, flash loans, e-mode.
/// aToken / debt-token balances are exposed as `aTokenBalanceOf(asset, user)` and `variableDebtOf(asset, user)`.
contract AaveV3Pool {
    using SafeERC20 for IERC20;

    struct Reserve {
        bool active;
        uint8 decimals;
        uint16 ltv; // basis points
        uint16 liquidationThreshold; // basis points
        uint256 price; // USD, 8 decimals
        uint256 totalSupplied;
        uint256 totalDebt;
    }

    address public owner;
    mapping(address => Reserve) public reserves;
    address[] internal _reservesList;
    mapping(address => mapping(address => uint256)) internal _supplied; // asset => user => amount
    mapping(address => mapping(address => uint256)) internal _debt; // asset => user => amount
    mapping(address => mapping(address => bool)) internal _collateralOff; // user => asset => disabled

    uint256 private constant HEALTH_FACTOR_ONE = 1e18;

    event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode);
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);
    event Borrow(
        address indexed reserve,
        address user,
        address indexed onBehalfOf,
        uint256 amount,
        uint8 interestRateMode,
        uint256 borrowRate,
        uint16 indexed referralCode
    );
    event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens);
    event ReserveUsedAsCollateralEnabled(address indexed reserve, address indexed user);
    event ReserveUsedAsCollateralDisabled(address indexed reserve, address indexed user);
    event ReserveConfigured(address indexed asset, uint256 price, uint16 ltv, uint16 liquidationThreshold);

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "AaveV3Pool: caller is not the owner");
        _;
    }

    // ---------------------------------------------------------------- admin

    /// Lists (or reconfigures) `asset`: price in USD with 8 decimals, LTV and liquidation threshold in basis points.
    /// Reads the asset's `decimals()`, so the token must already have code at `asset`.
    function setReserve(address asset, uint256 priceUsd8, uint16 ltvBps, uint16 liquidationThresholdBps) external onlyOwner {
        require(asset != address(0), "AaveV3Pool: asset is the zero address");
        require(priceUsd8 > 0, "AaveV3Pool: price must be greater than zero");
        require(ltvBps <= liquidationThresholdBps && liquidationThresholdBps <= 10_000, "AaveV3Pool: invalid ltv or liquidation threshold");
        Reserve storage r = reserves[asset];
        if (!r.active) {
            r.active = true;
            r.decimals = IERC20Metadata(asset).decimals();
            _reservesList.push(asset);
        }
        r.price = priceUsd8;
        r.ltv = ltvBps;
        r.liquidationThreshold = liquidationThresholdBps;
        emit ReserveConfigured(asset, priceUsd8, ltvBps, liquidationThresholdBps);
    }

    function setAssetPrice(address asset, uint256 priceUsd8) external onlyOwner {
        require(reserves[asset].active, "AaveV3Pool: asset is not listed");
        require(priceUsd8 > 0, "AaveV3Pool: price must be greater than zero");
        reserves[asset].price = priceUsd8;
        emit ReserveConfigured(asset, priceUsd8, reserves[asset].ltv, reserves[asset].liquidationThreshold);
    }

    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "AaveV3Pool: new owner is the zero address");
        owner = newOwner;
    }

    // ---------------------------------------------------------------- user actions

    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) public {
        Reserve storage r = _listed(asset);
        require(amount > 0, "AaveV3Pool: amount must be greater than zero");
        require(onBehalfOf != address(0), "AaveV3Pool: onBehalfOf is the zero address");
        IERC20(asset).safeTransferFrom(msg.sender, address(this), amount);
        _supplied[asset][onBehalfOf] += amount;
        r.totalSupplied += amount;
        emit Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    /// Legacy (Aave V2) name of `supply`.
    function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external {
        supply(asset, amount, onBehalfOf, referralCode);
    }

    /// Withdraws `amount` (type(uint256).max = the whole supplied balance) of the caller's supply to `to`.
    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        Reserve storage r = _listed(asset);
        uint256 balance = _supplied[asset][msg.sender];
        uint256 amountToWithdraw = amount == type(uint256).max ? balance : amount;
        require(amountToWithdraw > 0, "AaveV3Pool: amount must be greater than zero");
        require(amountToWithdraw <= balance, "AaveV3Pool: not enough available user balance");
        require(IERC20(asset).balanceOf(address(this)) >= amountToWithdraw, "AaveV3Pool: not enough liquidity in the reserve");
        _supplied[asset][msg.sender] = balance - amountToWithdraw;
        r.totalSupplied -= amountToWithdraw;
        _requireHealthy(msg.sender);
        IERC20(asset).safeTransfer(to, amountToWithdraw);
        emit Withdraw(asset, msg.sender, to, amountToWithdraw);
        return amountToWithdraw;
    }

    /// Borrows at variable rate (interestRateMode must be 2); the debt goes to `onBehalfOf`, which must be the caller.
    function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf) external {
        Reserve storage r = _listed(asset);
        require(amount > 0, "AaveV3Pool: amount must be greater than zero");
        require(interestRateMode == 2, "AaveV3Pool: invalid interest rate mode (only 2 = variable is supported)");
        require(onBehalfOf == msg.sender, "AaveV3Pool: credit delegation is not supported (onBehalfOf must be the caller)");
        require(IERC20(asset).balanceOf(address(this)) >= amount, "AaveV3Pool: not enough liquidity in the reserve");
        (uint256 collateralBase,, uint256 availableBase,,,) = getUserAccountData(msg.sender);
        require(collateralBase > 0, "AaveV3Pool: collateral balance is zero");
        uint256 valueBase = _valueRoundUp(r, amount);
        require(valueBase <= availableBase, "AaveV3Pool: collateral cannot cover new borrow");
        _debt[asset][onBehalfOf] += amount;
        r.totalDebt += amount;
        IERC20(asset).safeTransfer(msg.sender, amount);
        emit Borrow(asset, msg.sender, onBehalfOf, amount, 2, 0, referralCode);
    }

    /// Repays `amount` (type(uint256).max = the whole debt; only allowed for your own debt) of `onBehalfOf`'s debt.
    /// Returns the amount actually repaid.
    function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf) external returns (uint256) {
        Reserve storage r = _listed(asset);
        require(amount > 0, "AaveV3Pool: amount must be greater than zero");
        require(interestRateMode == 2, "AaveV3Pool: invalid interest rate mode (only 2 = variable is supported)");
        uint256 debt = _debt[asset][onBehalfOf];
        require(debt > 0, "AaveV3Pool: no debt of the selected type");
        require(amount != type(uint256).max || msg.sender == onBehalfOf, "AaveV3Pool: no explicit amount to repay on behalf");
        uint256 paid = amount < debt ? amount : debt;
        IERC20(asset).safeTransferFrom(msg.sender, address(this), paid);
        _debt[asset][onBehalfOf] = debt - paid;
        r.totalDebt -= paid;
        emit Repay(asset, onBehalfOf, msg.sender, paid, false);
        return paid;
    }

    function setUserUseReserveAsCollateral(address asset, bool useAsCollateral) external {
        _listed(asset);
        require(_supplied[asset][msg.sender] > 0, "AaveV3Pool: underlying balance is zero");
        _collateralOff[msg.sender][asset] = !useAsCollateral;
        if (useAsCollateral) {
            emit ReserveUsedAsCollateralEnabled(asset, msg.sender);
        } else {
            _requireHealthy(msg.sender);
            emit ReserveUsedAsCollateralDisabled(asset, msg.sender);
        }
    }

    // ---------------------------------------------------------------- views

    /// The six Aave values: collateral and debt in base currency (USD, 8 decimals), available borrows in base
    /// currency, weighted liquidation threshold and LTV in basis points, health factor (1e18 = 1; max if no debt).
    function getUserAccountData(address user)
        public
        view
        returns (
            uint256 totalCollateralBase,
            uint256 totalDebtBase,
            uint256 availableBorrowsBase,
            uint256 currentLiquidationThreshold,
            uint256 ltv,
            uint256 healthFactor
        )
    {
        uint256 weightedLtv;
        uint256 weightedLt;
        for (uint256 i = 0; i < _reservesList.length; i++) {
            address asset = _reservesList[i];
            Reserve storage r = reserves[asset];
            uint256 s = _supplied[asset][user];
            if (s > 0 && !_collateralOff[user][asset] && r.liquidationThreshold > 0) {
                uint256 v = _value(r, s);
                totalCollateralBase += v;
                weightedLtv += v * r.ltv;
                weightedLt += v * r.liquidationThreshold;
            }
            uint256 d = _debt[asset][user];
            if (d > 0) totalDebtBase += _valueRoundUp(r, d);
        }
        if (totalCollateralBase > 0) {
            ltv = weightedLtv / totalCollateralBase;
            currentLiquidationThreshold = weightedLt / totalCollateralBase;
        }
        uint256 maxBorrow = totalCollateralBase * ltv / 10_000;
        availableBorrowsBase = maxBorrow > totalDebtBase ? maxBorrow - totalDebtBase : 0;
        healthFactor = totalDebtBase == 0
            ? type(uint256).max
            : (totalCollateralBase * currentLiquidationThreshold / 10_000) * HEALTH_FACTOR_ONE / totalDebtBase;
    }

    function getReservesList() external view returns (address[] memory) {
        return _reservesList;
    }

    /// Price oracle view: USD with 8 decimals.
    function getAssetPrice(address asset) external view returns (uint256) {
        return reserves[asset].price;
    }

    /// aToken-like balance: what `user` has supplied of `asset`.
    function aTokenBalanceOf(address asset, address user) external view returns (uint256) {
        return _supplied[asset][user];
    }

    /// Variable-debt-token-like balance: what `user` owes of `asset`.
    function variableDebtOf(address asset, address user) external view returns (uint256) {
        return _debt[asset][user];
    }

    function isUsingAsCollateral(address user, address asset) external view returns (bool) {
        return _supplied[asset][user] > 0 && !_collateralOff[user][asset];
    }

    // ---------------------------------------------------------------- internals

    function _listed(address asset) private view returns (Reserve storage r) {
        r = reserves[asset];
        require(r.active, "AaveV3Pool: asset is not listed as a reserve");
    }

    function _value(Reserve storage r, uint256 amount) private view returns (uint256) {
        return amount * r.price / (10 ** r.decimals);
    }

    function _valueRoundUp(Reserve storage r, uint256 amount) private view returns (uint256) {
        uint256 unit = 10 ** r.decimals;
        return (amount * r.price + unit - 1) / unit;
    }

    function _requireHealthy(address user) private view {
        (,,,,, uint256 hf) = getUserAccountData(user);
        require(hf >= HEALTH_FACTOR_ONE, "AaveV3Pool: health factor would fall below 1");
    }
}
