// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {ERC20Votes} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Votes.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {Governor} from "@openzeppelin/contracts/governance/Governor.sol";
import {GovernorSettings} from "@openzeppelin/contracts/governance/extensions/GovernorSettings.sol";
import {GovernorCountingSimple} from "@openzeppelin/contracts/governance/extensions/GovernorCountingSimple.sol";
import {GovernorVotes} from "@openzeppelin/contracts/governance/extensions/GovernorVotes.sol";
import {GovernorVotesQuorumFraction} from
    "@openzeppelin/contracts/governance/extensions/GovernorVotesQuorumFraction.sol";
import {IVotes} from "@openzeppelin/contracts/governance/utils/IVotes.sol";

/// @title CrucibleVault
/// @notice Ethereum profile ERC-4626 vault over DAI (OpenZeppelin ERC4626): "Crucible Savings DAI"/"csDAI".
/// The asset address is an immutable.
contract CrucibleVault is ERC4626 {
    constructor(address dai) ERC20("Crucible Savings DAI", "csDAI") ERC4626(IERC20(dai)) {}
}

/// @title CrucibleVotes
/// @notice Governance token for `CrucibleGovernor`: "Crucible Governance Token"/"CGT", 18 decimals, ERC20Votes with a
/// timestamp clock (`CLOCK_MODE` = "mode=timestamp"), EIP-2612 permit. The whole `supply` is minted to `holder`, whose
/// votes are self-delegated at deployment.
contract CrucibleVotes is ERC20, ERC20Permit, ERC20Votes {
    constructor(address holder, uint256 supply)
        ERC20("Crucible Governance Token", "CGT")
        ERC20Permit("Crucible Governance Token")
    {
        _mint(holder, supply);
        _delegate(holder, holder);
    }

    function clock() public view override returns (uint48) {
        return uint48(block.timestamp);
    }

    // solhint-disable-next-line func-name-mixedcase
    function CLOCK_MODE() public pure override returns (string memory) {
        return "mode=timestamp";
    }

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Votes) {
        super._update(from, to, value);
    }

    function nonces(address owner) public view override(ERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }
}

/// @title CrucibleGovernor
/// @notice OpenZeppelin Governor (name "CrucibleGovernor") with simple counting (0 = Against, 1 = For, 2 = Abstain),
/// votes from `CrucibleVotes` (timestamp clock, so delay and period are in SECONDS), quorum as a percentage of the
/// total supply, proposal threshold 0, no timelock: a Succeeded proposal is executed directly by the governor, which
/// can hold ether and tokens.
contract CrucibleGovernor is Governor, GovernorSettings, GovernorCountingSimple, GovernorVotes, GovernorVotesQuorumFraction {
    constructor(IVotes token, uint48 votingDelaySeconds, uint32 votingPeriodSeconds, uint256 quorumPercent)
        Governor("CrucibleGovernor")
        GovernorSettings(votingDelaySeconds, votingPeriodSeconds, 0)
        GovernorVotes(token)
        GovernorVotesQuorumFraction(quorumPercent)
    {}

    function votingDelay() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingDelay();
    }

    function votingPeriod() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.votingPeriod();
    }

    function proposalThreshold() public view override(Governor, GovernorSettings) returns (uint256) {
        return super.proposalThreshold();
    }

    function quorum(uint256 timepoint) public view override(Governor, GovernorVotesQuorumFraction) returns (uint256) {
        return super.quorum(timepoint);
    }
}
