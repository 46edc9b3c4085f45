import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const nft = new ethers.Interface(["function transferFrom(address from, address to, uint256 tokenId)", "function safeTransferFrom(address from, address to, uint256 tokenId)"]);
  return { to: "{{nft}}", data: nft.encodeFunctionData("safeTransferFrom", [agentAddress, "{{to}}", {{token_id}}n]) };
}
