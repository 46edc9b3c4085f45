import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const nft = new ethers.Interface(["function transferFrom(address from, address to, uint256 id)", "function safeTransferFrom(address from, address to, uint256 id)", "function approve(address to, uint256 id)", "function setApprovalForAll(address operator, bool approved)"]);
  return { to: "{{nft}}", data: nft.encodeFunctionData("approve", ["{{operator}}", 1n]) };
}
