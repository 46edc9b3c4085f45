import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const impl = new ethers.Interface(["function setValue(uint256 newValue)"]);
  return { to: "{{proxy}}", data: impl.encodeFunctionData("setValue", [ethers.parseUnits("{{value}}", 18)]) };
}
