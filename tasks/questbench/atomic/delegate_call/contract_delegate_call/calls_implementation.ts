import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const impl = new ethers.Interface(["function setValue(uint256 newValue)"]);
  return { to: "{{implementation}}", data: impl.encodeFunctionData("setValue", [{{value}}n]) };
}
