import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const nft = new ethers.Interface(["function transferFrom(address from, address to, uint256 id)", "function safeTransferFrom(address from, address to, uint256 id)", "function safeTransferFrom(address from, address to, uint256 id, bytes data)", "function approve(address to, uint256 id)"]);
  return { to: "0x0a8901b0E25DEb55A87524f0cC164E9644020EBA", data: nft.encodeFunctionData("safeTransferFrom(address,address,uint256)", [agentAddress, "{{to_address}}", {{token_id}}n]) };
}
