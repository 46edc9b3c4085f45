import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const f = new ethers.Interface(["function executeFlashLoan(address token, uint256 amount)"]);
  const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount) returns (bool)"]);
  return { to: "{{pool}}", data: f.encodeFunctionData("executeFlashLoan", ["{{token}}", ethers.parseUnits("{{amount}}", 6)]) };
}
