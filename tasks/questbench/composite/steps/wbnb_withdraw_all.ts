import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const wbnb = new ethers.Interface(["function deposit() payable", "function withdraw(uint256 wad)", "function balanceOf(address who) view returns (uint256)"]);
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const held: bigint = await new ethers.Contract("{{wbnb}}", wbnb, provider).balanceOf(agentAddress);
  return { to: "{{wbnb}}", data: wbnb.encodeFunctionData("withdraw", [held]) };
}
