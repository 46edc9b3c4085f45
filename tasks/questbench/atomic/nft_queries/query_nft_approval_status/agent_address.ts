import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const nft = new ethers.Contract("{{nft}}", ["function ownerOf(uint256 id) view returns (address)", "function getApproved(uint256 id) view returns (address)"], provider);
  return { approved_address: agentAddress };
}
