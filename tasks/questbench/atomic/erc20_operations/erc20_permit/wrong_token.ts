import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const t = new ethers.Interface(["function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)", "function approve(address spender, uint256 amount) returns (bool)"]);
  const sig = ethers.Signature.from("{{signature}}");
  return { to: "0x55d398326f99059fF775485246999027B3197955", data: t.encodeFunctionData("permit", ["{{owner}}", "{{spender}}", ethers.parseUnits("{{value}}", 18), {{deadline}}n, sig.v, sig.r, sig.s]) };
}
