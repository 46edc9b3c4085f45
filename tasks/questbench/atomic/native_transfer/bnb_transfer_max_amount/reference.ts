import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const balance = await provider.getBalance(agentAddress);
  const block = await provider.getBlock("latest");
  const baseFee = block?.baseFeePerGas ?? 0n;
  const gasLimit = 21000n;
  // The platform's fee cap: 2 x base fee + 1.001 gwei.
  const maxFee = 2n * baseFee + 1_001_000_000n;
  return { to: "{{to_address}}", value: (balance - gasLimit * maxFee).toString(), gasLimit: gasLimit.toString() };
}
