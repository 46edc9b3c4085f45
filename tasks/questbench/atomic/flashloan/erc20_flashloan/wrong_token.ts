import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const f = new ethers.Interface(["function executeFlashLoan(address token, uint256 amount)"]);
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)"]);
  return { to: "{{pool}}", data: f.encodeFunctionData("executeFlashLoan", ["0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56", ethers.parseUnits("{{amount}}", 18)]) };
}
