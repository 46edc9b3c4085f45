import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  return { to: "0x55d398326f99059fF775485246999027B3197955", value: ethers.parseEther("{{amount}}"), data: ethers.hexlify(ethers.toUtf8Bytes("{{message}}")) };
}
