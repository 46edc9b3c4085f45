import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const t1363 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)", "function approve(address spender, uint256 amount) returns (bool)", "function transferAndCall(address to, uint256 amount) returns (bool)", "function transferAndCall(address to, uint256 amount, bytes data) returns (bool)", "function approveAndCall(address spender, uint256 amount) returns (bool)", "function approveAndCall(address spender, uint256 amount, bytes data) returns (bool)"]);
  return { to: "{{token}}", data: t1363.encodeFunctionData("transferAndCall(address,uint256,bytes)", ["0x000000000000000000000000000000000000dEaD", ethers.parseUnits("{{amount}}", 18), "0x"]) };
}
