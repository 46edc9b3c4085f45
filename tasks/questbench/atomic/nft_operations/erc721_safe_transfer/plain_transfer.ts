import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const nft = new ethers.Interface(["function transferFrom(address from, address to, uint256 id)", "function safeTransferFrom(address from, address to, uint256 id)", "function safeTransferFrom(address from, address to, uint256 id, bytes data)", "function approve(address to, uint256 id)"]);
  return { to: "{{nft}}", data: nft.encodeFunctionData("transferFrom", [agentAddress, "{{to_address}}", {{token_id}}n]) };
}
