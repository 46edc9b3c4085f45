import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const impl = new ethers.Interface(["function setValue(uint256 newValue)"]);
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: impl.encodeFunctionData("setValue", [{{value}}n]) };
}
