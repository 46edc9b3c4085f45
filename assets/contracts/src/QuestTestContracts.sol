// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title FlashLoanReceiver
/// @notice QuestBench flash-loan provider over one token (USDT in the BSC profile). `executeFlashLoan(token, amount)`
/// sends `amount` to the caller and pulls back `amount + fee` (fee = amount * 3 / 1000, 0.3 %) with `transferFrom` in
/// the same call, so the caller must have approved this contract for amount + fee.
/// Storage: 0 owner, 1 token.
contract FlashLoanReceiver {
    using SafeERC20 for IERC20;

    address public owner;
    IERC20 public token;

    event FlashLoan(address indexed borrower, address indexed token, uint256 amount, uint256 fee);
    event Deposited(address indexed from, uint256 amount);
    event Withdrawn(address indexed to, uint256 amount);

    constructor(address token_) {
        require(token_ != address(0), "FlashLoanReceiver: token is the zero address");
        owner = msg.sender;
        token = IERC20(token_);
    }

    /// Fee for borrowing `amount`: 0.3 %, rounded down.
    function flashFee(uint256 amount) public pure returns (uint256) {
        return amount * 3 / 1000;
    }

    function executeFlashLoan(address token_, uint256 amount) external {
        require(token_ == address(token), "FlashLoanReceiver: unsupported token");
        require(amount > 0, "FlashLoanReceiver: amount must be greater than zero");
        require(token.balanceOf(address(this)) >= amount, "FlashLoanReceiver: insufficient pool balance");
        uint256 fee = flashFee(amount);
        token.safeTransfer(msg.sender, amount);
        token.safeTransferFrom(msg.sender, address(this), amount + fee);
        emit FlashLoan(msg.sender, token_, amount, fee);
    }

    function depositToPool(uint256 amount) external {
        token.safeTransferFrom(msg.sender, address(this), amount);
        emit Deposited(msg.sender, amount);
    }

    function poolBalance() external view returns (uint256) {
        return token.balanceOf(address(this));
    }

    function withdraw(uint256 amount) external {
        require(msg.sender == owner, "FlashLoanReceiver: caller is not the owner");
        token.safeTransfer(owner, amount);
        emit Withdrawn(owner, amount);
    }
}

/// @title SimpleCounter
/// @notice Storage: 0 counter, 1 owner.
contract SimpleCounter {
    uint256 public counter;
    address public owner;

    event Incremented(address indexed by, uint256 newValue);
    event Reset(address indexed by);

    constructor() {
        owner = msg.sender;
    }

    function increment() external {
        counter += 1;
        emit Incremented(msg.sender, counter);
    }

    function getCounter() external view returns (uint256) {
        return counter;
    }

    function reset() external {
        require(msg.sender == owner, "SimpleCounter: caller is not the owner");
        counter = 0;
        emit Reset(msg.sender);
    }
}

/// @title DonationBox
/// @notice `donate()` (or a plain payment) records a donation. Storage: 0 owner, 1 donations, 2 totalDonations.
contract DonationBox {
    address public owner;
    mapping(address => uint256) public donations;
    uint256 public totalDonations;

    event Donated(address indexed donor, uint256 amount);
    event Withdrawn(address indexed to, uint256 amount);

    constructor() {
        owner = msg.sender;
    }

    function donate() public payable {
        require(msg.value > 0, "DonationBox: donation must be greater than zero");
        donations[msg.sender] += msg.value;
        totalDonations += msg.value;
        emit Donated(msg.sender, msg.value);
    }

    receive() external payable {
        donate();
    }

    function getBalance() external view returns (uint256) {
        return address(this).balance;
    }

    function getDonation(address donor) external view returns (uint256) {
        return donations[donor];
    }

    function withdraw() external {
        require(msg.sender == owner, "DonationBox: caller is not the owner");
        uint256 amount = address(this).balance;
        (bool ok,) = payable(owner).call{value: amount}("");
        require(ok, "DonationBox: withdraw transfer failed");
        emit Withdrawn(owner, amount);
    }
}

/// @title MessageBoard
/// @notice Storage: 0 message, 1 lastSender, 2 updateCount. Initial message "Initial message".
contract MessageBoard {
    string public message;
    address public lastSender;
    uint256 public updateCount;

    event MessageUpdated(address indexed sender, string newMessage, uint256 updateCount);

    constructor() {
        message = "Initial message";
        lastSender = msg.sender;
    }

    function setMessage(string calldata newMessage) external {
        message = newMessage;
        lastSender = msg.sender;
        updateCount += 1;
        emit MessageUpdated(msg.sender, newMessage, updateCount);
    }

    function getMessage() external view returns (string memory) {
        return message;
    }

    function getMessageInfo() external view returns (string memory, address, uint256) {
        return (message, lastSender, updateCount);
    }
}

/// @title Implementation
/// @notice Logic contract for `DelegateCallProxy`. Storage: 0 value.
contract Implementation {
    uint256 public value;

    event ValueChanged(address indexed by, uint256 newValue);

    function setValue(uint256 newValue) external {
        value = newValue;
        emit ValueChanged(msg.sender, newValue);
    }

    function getValue() external view returns (uint256) {
        return value;
    }
}

/// @title DelegateCallProxy
/// @notice Forwards every unknown call to `implementation` with DELEGATECALL, so `setValue` through the proxy writes
/// the proxy's slot 0 and leaves the implementation's untouched. Storage: 0 value, 1 implementation.
contract DelegateCallProxy {
    uint256 public value;
    address public implementation;

    constructor(address impl) {
        require(impl.code.length > 0, "DelegateCallProxy: implementation has no code");
        implementation = impl;
    }

    receive() external payable {}

    fallback() external payable {
        address impl = implementation;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }
}

/// @title FallbackReceiver
/// @notice Both `receive` and `fallback` count the call and the value. Storage: 0 owner, 1 receivedCount,
/// 2 totalReceived.
contract FallbackReceiver {
    address public owner;
    uint256 public receivedCount;
    uint256 public totalReceived;

    event Received(address indexed from, uint256 amount, bytes data);

    constructor() {
        owner = msg.sender;
    }

    receive() external payable {
        receivedCount += 1;
        totalReceived += msg.value;
        emit Received(msg.sender, msg.value, "");
    }

    fallback() external payable {
        receivedCount += 1;
        totalReceived += msg.value;
        emit Received(msg.sender, msg.value, msg.data);
    }

    function getBalance() external view returns (uint256) {
        return address(this).balance;
    }

    function getReceivedCount() external view returns (uint256) {
        return receivedCount;
    }

    function withdraw() external {
        require(msg.sender == owner, "FallbackReceiver: caller is not the owner");
        (bool ok,) = payable(owner).call{value: address(this).balance}("");
        require(ok, "FallbackReceiver: withdraw transfer failed");
    }
}

/// @title SimpleStakingBase
/// @notice Single-token staking: `deposit` pulls tokens with `transferFrom`, `withdraw` returns them.
/// Storage: 0 stakingToken, 1 userInfo, 2 totalStaked, 3 owner.
abstract contract SimpleStakingBase {
    using SafeERC20 for IERC20;

    struct UserInfo {
        uint256 amount;
        uint256 depositTime;
    }

    IERC20 public stakingToken;
    mapping(address => UserInfo) public userInfo;
    uint256 public totalStaked;
    address public owner;

    event Deposit(address indexed user, uint256 amount);
    event Withdraw(address indexed user, uint256 amount);

    constructor(address token_) {
        require(token_ != address(0), "staking: token is the zero address");
        stakingToken = IERC20(token_);
        owner = msg.sender;
    }

    function deposit(uint256 amount) external {
        require(amount > 0, "staking: amount must be greater than zero");
        stakingToken.safeTransferFrom(msg.sender, address(this), amount);
        UserInfo storage u = userInfo[msg.sender];
        u.amount += amount;
        u.depositTime = block.timestamp;
        totalStaked += amount;
        emit Deposit(msg.sender, amount);
    }

    function withdraw(uint256 amount) external {
        UserInfo storage u = userInfo[msg.sender];
        require(amount > 0, "staking: amount must be greater than zero");
        require(u.amount >= amount, "staking: withdraw amount exceeds staked balance");
        u.amount -= amount;
        totalStaked -= amount;
        stakingToken.safeTransfer(msg.sender, amount);
        emit Withdraw(msg.sender, amount);
    }

    /// (staked amount, time of the last deposit).
    function getUserInfo(address user) external view returns (uint256 amount, uint256 depositTime) {
        UserInfo storage u = userInfo[user];
        return (u.amount, u.depositTime);
    }
}

/// @title SimpleStaking
/// @notice Single-token staking of CAKE (BSC profile).
contract SimpleStaking is SimpleStakingBase {
    constructor(address token) SimpleStakingBase(token) {}
}

/// @title SimpleLPStaking
/// @notice Staking of the USDT/BUSD LP token (BSC profile).
contract SimpleLPStaking is SimpleStakingBase {
    constructor(address lpToken_) SimpleStakingBase(lpToken_) {}

    function lpToken() external view returns (IERC20) {
        return stakingToken;
    }
}

/// @title SimpleRewardPool
/// @notice Stake an LP token, earn `rewardToken` at `rewardRate` per second per 1e18 staked (the reference uses
/// 0.01e18). `deposit` and `withdraw` pay out pending rewards first; `harvest` pays them; `emergencyWithdraw` returns
/// the stake and forfeits rewards. Rewards are paid from this contract's reward-token balance (fund it); if that runs
/// short, the unpaid part stays owed in `rewardDebt`.
/// Storage: 0 lpToken, 1 rewardToken, 2 rewardRate, 3 userInfo, 4 totalStaked, 5 owner.
contract SimpleRewardPool {
    using SafeERC20 for IERC20;

    struct UserInfo {
        uint256 amount;
        uint256 rewardDebt; // rewards accrued and not yet paid
        uint256 lastUpdateTime;
    }

    IERC20 public lpToken;
    IERC20 public rewardToken;
    uint256 public rewardRate;
    mapping(address => UserInfo) public userInfo;
    uint256 public totalStaked;
    address public owner;

    event Deposit(address indexed user, uint256 amount);
    event Withdraw(address indexed user, uint256 amount);
    event Harvest(address indexed user, uint256 amount);
    event EmergencyWithdraw(address indexed user, uint256 amount);

    constructor(address lpToken_, address rewardToken_, uint256 rate) {
        require(lpToken_ != address(0) && rewardToken_ != address(0), "SimpleRewardPool: token is the zero address");
        require(lpToken_ != rewardToken_, "SimpleRewardPool: staking and reward token must differ");
        lpToken = IERC20(lpToken_);
        rewardToken = IERC20(rewardToken_);
        rewardRate = rate;
        owner = msg.sender;
    }

    /// Rewards `user` could harvest now.
    function pendingReward(address user) public view returns (uint256) {
        UserInfo storage u = userInfo[user];
        if (u.lastUpdateTime == 0) return u.rewardDebt;
        return u.rewardDebt + u.amount * rewardRate * (block.timestamp - u.lastUpdateTime) / 1e18;
    }

    function deposit(uint256 amount) external {
        require(amount > 0, "SimpleRewardPool: amount must be greater than zero");
        _harvest(msg.sender);
        lpToken.safeTransferFrom(msg.sender, address(this), amount);
        userInfo[msg.sender].amount += amount;
        totalStaked += amount;
        emit Deposit(msg.sender, amount);
    }

    function withdraw(uint256 amount) external {
        require(amount > 0, "SimpleRewardPool: amount must be greater than zero");
        require(userInfo[msg.sender].amount >= amount, "SimpleRewardPool: withdraw amount exceeds staked balance");
        _harvest(msg.sender);
        userInfo[msg.sender].amount -= amount;
        totalStaked -= amount;
        lpToken.safeTransfer(msg.sender, amount);
        emit Withdraw(msg.sender, amount);
    }

    function harvest() external {
        _harvest(msg.sender);
    }

    function emergencyWithdraw() external {
        UserInfo storage u = userInfo[msg.sender];
        uint256 amount = u.amount;
        require(amount > 0, "SimpleRewardPool: nothing staked");
        u.amount = 0;
        u.rewardDebt = 0;
        u.lastUpdateTime = block.timestamp;
        totalStaked -= amount;
        lpToken.safeTransfer(msg.sender, amount);
        emit EmergencyWithdraw(msg.sender, amount);
    }

    /// (staked amount, unpaid accrued rewards, time of the last update).
    function getUserInfo(address user) external view returns (uint256 amount, uint256 rewardDebt, uint256 lastUpdateTime) {
        UserInfo storage u = userInfo[user];
        return (u.amount, u.rewardDebt, u.lastUpdateTime);
    }

    function _harvest(address user) private {
        uint256 pending = pendingReward(user);
        UserInfo storage u = userInfo[user];
        u.lastUpdateTime = block.timestamp;
        uint256 available = rewardToken.balanceOf(address(this));
        uint256 pay = pending < available ? pending : available;
        u.rewardDebt = pending - pay;
        if (pay > 0) {
            rewardToken.safeTransfer(user, pay);
            emit Harvest(user, pay);
        }
    }
}
