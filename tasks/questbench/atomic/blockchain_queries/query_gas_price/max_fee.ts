import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const f = await provider.getFeeData();
  return { gas_price: f.maxFeePerGas!.toString(), base_fee_per_gas: f.gasPrice!.toString() };
}
