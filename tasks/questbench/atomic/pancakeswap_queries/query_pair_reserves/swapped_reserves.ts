import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const provider = new ethers.JsonRpcProvider(providerUrl, undefined, { staticNetwork: true });
  const pair = new ethers.Contract("{{pair}}", ["function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)"], provider);
  const res = await pair.getReserves();
  return { reserve0: res[1].toString(), reserve1: res[0].toString(), block_timestamp_last: res[2].toString() };
}
