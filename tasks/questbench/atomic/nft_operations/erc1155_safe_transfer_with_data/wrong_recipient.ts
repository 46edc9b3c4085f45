import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const m = new ethers.Interface(["function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)"]);
  return { to: "{{token}}", data: m.encodeFunctionData("safeTransferFrom", [agentAddress, "0x000000000000000000000000000000000000dEaD", {{token_id}}n, {{amount}}n, ethers.toUtf8Bytes("{{message}}")]) };
}
