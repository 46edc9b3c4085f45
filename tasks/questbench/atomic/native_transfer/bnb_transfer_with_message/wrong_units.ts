import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  return { to: "{{to_address}}", value: ethers.parseUnits("{{amount}}", "gwei"), data: ethers.hexlify(ethers.toUtf8Bytes("{{message}}")) };
}
