// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title LidoStETH
/// @notice Stand-in for Lido's stETH at 0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84: "Liquid staked Ether 2.0"/"stETH",
/// 18 decimals, share-based balances (`balanceOf = shares * totalPooledEther / totalShares`). `submit` (and a plain
/// ETH payment) mints shares for the ether sent; no oracle reports happen, so the rate stays 1 share = 1 wei and
/// balances do not rebase. There are no withdrawals (mainnet uses a separate withdrawal queue).
/// Storage: 0 shares, 1 allowances, 2 totalShares, 3 totalPooledEther.
contract LidoStETH {
    mapping(address => uint256) private shares;
    mapping(address => mapping(address => uint256)) private allowances;
    uint256 private totalShares;
    uint256 private totalPooledEther;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event TransferShares(address indexed from, address indexed to, uint256 sharesValue);
    event Submitted(address indexed sender, uint256 amount, address referral);

    function name() external pure returns (string memory) {
        return "Liquid staked Ether 2.0";
    }

    function symbol() external pure returns (string memory) {
        return "stETH";
    }

    function decimals() external pure returns (uint8) {
        return 18;
    }

    /// Stakes `msg.value` ether and mints the matching shares to the sender; returns the shares minted.
    function submit(address referral) public payable returns (uint256) {
        require(msg.value != 0, "ZERO_DEPOSIT");
        uint256 sharesAmount = getSharesByPooledEth(msg.value);
        require(sharesAmount != 0, "ZERO_SHARES");
        shares[msg.sender] += sharesAmount;
        totalShares += sharesAmount;
        totalPooledEther += msg.value;
        emit Submitted(msg.sender, msg.value, referral);
        emit Transfer(address(0), msg.sender, getPooledEthByShares(sharesAmount));
        emit TransferShares(address(0), msg.sender, sharesAmount);
        return sharesAmount;
    }

    /// A plain ether payment is `submit(address(0))`.
    receive() external payable {
        submit(address(0));
    }

    function totalSupply() external view returns (uint256) {
        return totalPooledEther;
    }

    function getTotalPooledEther() external view returns (uint256) {
        return totalPooledEther;
    }

    function getTotalShares() external view returns (uint256) {
        return totalShares;
    }

    function sharesOf(address account) external view returns (uint256) {
        return shares[account];
    }

    function balanceOf(address account) external view returns (uint256) {
        return getPooledEthByShares(shares[account]);
    }

    function getSharesByPooledEth(uint256 ethAmount) public view returns (uint256) {
        if (totalPooledEther == 0) return ethAmount;
        return ethAmount * totalShares / totalPooledEther;
    }

    function getPooledEthByShares(uint256 sharesAmount) public view returns (uint256) {
        if (totalShares == 0) return 0;
        return sharesAmount * totalPooledEther / totalShares;
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return allowances[owner][spender];
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function increaseAllowance(address spender, uint256 addedValue) external returns (bool) {
        _approve(msg.sender, spender, allowances[msg.sender][spender] + addedValue);
        return true;
    }

    function decreaseAllowance(address spender, uint256 subtractedValue) external returns (bool) {
        uint256 current = allowances[msg.sender][spender];
        require(current >= subtractedValue, "ALLOWANCE_BELOW_ZERO");
        _approve(msg.sender, spender, current - subtractedValue);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, amount);
        _transfer(from, to, amount);
        return true;
    }

    /// Moves `sharesAmount` shares; returns the token amount they are worth.
    function transferShares(address to, uint256 sharesAmount) external returns (uint256) {
        _transferShares(msg.sender, to, sharesAmount);
        uint256 tokens = getPooledEthByShares(sharesAmount);
        emit Transfer(msg.sender, to, tokens);
        emit TransferShares(msg.sender, to, sharesAmount);
        return tokens;
    }

    function _transfer(address from, address to, uint256 amount) private {
        uint256 sharesToTransfer = getSharesByPooledEth(amount);
        _transferShares(from, to, sharesToTransfer);
        emit Transfer(from, to, amount);
        emit TransferShares(from, to, sharesToTransfer);
    }

    function _transferShares(address from, address to, uint256 sharesAmount) private {
        require(to != address(0), "TRANSFER_TO_ZERO_ADDR");
        require(to != address(this), "TRANSFER_TO_STETH_CONTRACT");
        uint256 current = shares[from];
        require(sharesAmount <= current, "BALANCE_EXCEEDED");
        shares[from] = current - sharesAmount;
        shares[to] += sharesAmount;
    }

    function _spendAllowance(address owner, uint256 amount) private {
        uint256 current = allowances[owner][msg.sender];
        if (current != type(uint256).max) {
            require(current >= amount, "ALLOWANCE_EXCEEDED");
            allowances[owner][msg.sender] = current - amount;
        }
    }

    function _approve(address owner, address spender, uint256 amount) private {
        require(owner != address(0), "APPROVE_FROM_ZERO_ADDR");
        require(spender != address(0), "APPROVE_TO_ZERO_ADDR");
        allowances[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }
}
