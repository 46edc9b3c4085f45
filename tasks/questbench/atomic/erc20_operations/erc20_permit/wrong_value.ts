import { ethers } from "ethers";

export async function executeSkill(providerUrl: string, agentAddress: string, deployedContracts: Record<string, string>) {
  const t = new ethers.Interface(["function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)", "function approve(address spender, uint256 amount) returns (bool)"]);
  const sig = ethers.Signature.from("{{signature}}");
  return { to: "{{token}}", data: t.encodeFunctionData("permit", ["{{owner}}", "{{spender}}", ethers.parseUnits("{{value}}", 18) + 1n, {{deadline}}n, sig.v, sig.r, sig.s]) };
}
