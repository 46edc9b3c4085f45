import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const gasPrice = BigInt(await provider.send("eth_gasPrice", []));
  const block = await provider.getBlock("latest");
  return { gas_price: ethers.formatUnits(gasPrice, 9), base_fee_per_gas: ethers.formatUnits(block!.baseFeePerGas!, 9) };
}
