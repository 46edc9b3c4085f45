import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const board = new ethers.Interface(["function setMessage(string newMessage)", "function getMessage() view returns (string)"]);
  return { to: "{{board}}", data: board.encodeFunctionData("setMessage", ["{{message}}"]) };
}
