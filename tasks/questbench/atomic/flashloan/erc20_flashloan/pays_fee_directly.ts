import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const f = new ethers.Interface(["function executeFlashLoan(address token, uint256 amount)"]);
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)"]);
  const fee = ethers.parseUnits("{{amount}}", 18) * 3n / 1000n;
  return { to: "{{token}}", data: erc20.encodeFunctionData("transfer", ["{{pool}}", fee]) };
}
