import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const nft = new ethers.Contract("{{nft}}", ["function balanceOf(address owner) view returns (uint256)", "function ownerOf(uint256 id) view returns (address)", "function getApproved(uint256 id) view returns (address)", "function tokenURI(uint256 id) view returns (string)", "function name() view returns (string)"], provider);
  const o = await nft.ownerOf({{id_a}}n);
  return { balance: o.toLowerCase() === "{{holder}}".toLowerCase() ? "1" : "0" };
}
