import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const m = new ethers.Interface(["function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)", "function setApprovalForAll(address operator, bool approved)"]);
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: m.encodeFunctionData("safeTransferFrom", [agentAddress, "{{to_address}}", {{token_id}}n, {{amount}}n, "0x"]) };
}
