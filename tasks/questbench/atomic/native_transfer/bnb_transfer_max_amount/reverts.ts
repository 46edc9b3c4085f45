import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const balance = await provider.getBalance(agentAddress);
  // Sends the coins to the USDT token contract, which has no payable fallback: reverts.
  return { to: "0x55d398326f99059fF775485246999027B3197955", value: (balance / 2n).toString() };
}
