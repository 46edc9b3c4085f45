// SPDX-License-Identifier: MIT
// Stand-ins for Intent2Tx's paper-book contracts the offline eth universe does not implement.
// Installed by the execution fixture with anvil_setCode (no constructor, no immutables: every
// value a stand-in needs is a constant or starts at zero). Compiled by ./compile.mjs; the runtime
// bytecode is embedded in crates/intent2tx/src/execute/standins.rs.
pragma solidity ^0.8.20;

interface IERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// The deposit side of the OP-stack L1StandardBridge (Optimism, Base): ETH and ERC-20 deposits
/// lock the asset in the bridge and emit the real contract's events.
contract StandardBridgeStandIn {
    event ETHDepositInitiated(address indexed from, address indexed to, uint256 amount, bytes extraData);
    event ERC20DepositInitiated(
        address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes extraData
    );

    function depositETH(uint32, bytes calldata _extraData) external payable {
        require(msg.value > 0, "bridge: zero amount");
        emit ETHDepositInitiated(msg.sender, msg.sender, msg.value, _extraData);
    }

    function depositETHTo(address _to, uint32, bytes calldata _extraData) external payable {
        require(msg.value > 0, "bridge: zero amount");
        require(_to != address(0), "bridge: zero recipient");
        emit ETHDepositInitiated(msg.sender, _to, msg.value, _extraData);
    }

    function depositERC20(address _l1Token, address _l2Token, uint256 _amount, uint32, bytes calldata _extraData)
        external
    {
        _lock(_l1Token, _amount);
        emit ERC20DepositInitiated(_l1Token, _l2Token, msg.sender, msg.sender, _amount, _extraData);
    }

    function depositERC20To(
        address _l1Token,
        address _l2Token,
        address _to,
        uint256 _amount,
        uint32,
        bytes calldata _extraData
    ) external {
        require(_to != address(0), "bridge: zero recipient");
        _lock(_l1Token, _amount);
        emit ERC20DepositInitiated(_l1Token, _l2Token, msg.sender, _to, _amount, _extraData);
    }

    function _lock(address token, uint256 amount) private {
        require(amount > 0, "bridge: zero amount");
        // USDT returns nothing: accept empty return data or `true`.
        (bool ok, bytes memory ret) =
            token.call(abi.encodeWithSelector(IERC20Like.transferFrom.selector, msg.sender, address(this), amount));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))), "bridge: transfer failed");
    }
}

/// The reward claim of Compound V2's Comptroller: `claimComp(holder)` pays the holder's accrued
/// reward once. The stand-in accrues a fixed 0.05 ETH per holder (COMP is not in the paper's
/// book, so the reward is paid in ETH, which StateEq observes).
contract ComptrollerStandIn {
    uint256 public constant REWARD = 0.05 ether;
    mapping(address => bool) public claimed;

    event DistributedComp(address indexed holder, uint256 amount);

    function claimComp(address holder) external {
        require(!claimed[holder], "comptroller: nothing to claim");
        claimed[holder] = true;
        (bool ok,) = holder.call{value: REWARD}("");
        require(ok, "comptroller: payout failed");
        emit DistributedComp(holder, REWARD);
    }

    function compAccrued(address holder) external view returns (uint256) {
        return claimed[holder] ? 0 : REWARD;
    }

    receive() external payable {}
}
