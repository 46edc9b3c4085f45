//! The declarative check library: evaluates a task's [`Check`]s against the chain, the SAMPLED
//! parameters, the pre-state and the sent transaction (or a query answer). Expected values are
//! computed before the transaction (so `percent_of` and pre-state reads see the state the agent
//! saw); actual values after it. Every check records expected vs actual.

use alloy::primitives::{keccak256, Address, Bytes, U256};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::instance::{decimal_units, Instance, ParamValue};
use super::paper::{self, PaperPart, PaperTolerance};
use super::task::{
    Check, CheckSpec, Direction, Expr, LiquidityYield, QuoteSide, Read, TaskSpec, Tolerance,
};
use super::QuestError;
use crucible_chain::universe::Manifest;
use crucible_chain::{Chain, Receipt};
use crucible_core::BoxFuture;

/// What the checks look at besides the chain.
#[derive(Debug, Clone)]
pub enum Evidence {
    /// A transaction the harness signed and sent.
    Tx(SentTx),
    /// A query task's answer object.
    Answer(Value),
    /// A composite episode's end state: the fees the agent paid over every round and the answer
    /// object of its submit message (`null` when none).
    Episode {
        /// Total fee paid by the agent in the episode.
        fee: U256,
        /// The submitted answer object.
        answer: Value,
    },
}

/// The transaction as sent, with its receipt.
#[derive(Debug, Clone)]
pub struct SentTx {
    /// Target.
    pub to: Address,
    /// Calldata.
    pub data: Bytes,
    /// Value in wei.
    pub value: U256,
    /// Receipt.
    pub receipt: Receipt,
    /// Fee the agent paid (gas used × effective gas price).
    pub fee: U256,
}

/// The verdict of one check (a field a stored one lacks reads as its default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckResult {
    /// Check name.
    pub name: String,
    /// Family.
    pub family: String,
    /// Points.
    pub weight: u32,
    /// Expected value, as text.
    pub expected: String,
    /// Actual value, as text.
    pub actual: String,
    /// Whether it passed.
    pub passed: bool,
    /// Whether actual equals expected exactly (false when it passed only within tolerance).
    pub exact: bool,
    /// The paper component the check belongs to ([`crate::paper`]).
    pub paper: PaperPart,
    /// Whether it passed under the paper's tolerance (the same observation as `passed`).
    pub paper_passed: bool,
    /// An answer check: the field was present and of the right type (`true` for other checks).
    pub well_formed: bool,
    /// A guard check (holds when nothing happens; see the task spec's `guard`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guard: bool,
    /// The unit of an amount check's `expected` and `actual` (integers in the token's smallest
    /// unit), so a reader sees "1.5 USDT" rather than wei; absent for other checks and for
    /// tokens the universe does not describe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<AmountUnit>,
}

/// A token's symbol and decimals: how an integer amount in its smallest unit reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmountUnit {
    /// `BNB`, `USDT`, …
    pub symbol: String,
    /// Decimal places (18 for the native coin).
    pub decimals: u8,
}

/// The unit an amount check's numbers are in: the chain's native coin for value and native
/// balance checks, the token's symbol and decimals for ERC-20 balance and allowance checks;
/// `None` for other checks and for tokens the universe does not describe. Needs no chain.
pub fn amount_unit(check: &Check, instance: &Instance, manifest: &Manifest) -> Option<AmountUnit> {
    let native = || AmountUnit {
        symbol: match manifest.profile {
            crucible_chain::Profile::Bsc => "BNB",
            crucible_chain::Profile::Eth => "ETH",
        }
        .into(),
        decimals: 18,
    };
    match check {
        Check::TxValue { .. } | Check::NativeDelta { .. } => Some(native()),
        Check::Erc20Delta { token, .. } | Check::AllowanceEquals { token, .. } => {
            let at = instance.resolve(token, manifest).ok()?;
            let c = manifest.contracts.iter().find(|c| c.address == at)?;
            Some(AmountUnit {
                symbol: c.symbol.clone()?,
                decimals: c.decimals?,
            })
        }
        _ => None,
    }
}

/// Values a check needs from before the transaction.
#[derive(Debug, Clone, Default)]
pub struct Pre {
    expected: Option<U256>,
    before: Option<U256>,
    id: Option<U256>,
}

/// Reads chain state for one instance.
#[derive(Debug, Clone, Copy)]
pub struct Probe<'a> {
    /// The node.
    pub chain: &'a Chain,
    /// The universe.
    pub manifest: &'a Manifest,
    /// The instance (parameters, agent).
    pub instance: &'a Instance,
}

impl<'a> Probe<'a> {
    fn addr(&self, r: &str) -> Result<Address, QuestError> {
        self.instance.resolve(r, self.manifest)
    }

    /// Evaluates an expression now.
    pub fn eval(&self, e: &'a Expr) -> BoxFuture<'a, Result<U256, QuestError>> {
        let this = *self;
        Box::pin(async move {
            Ok(match e {
                Expr::Units { param, decimals } => {
                    let text = match this.instance.param(param) {
                        Some(ParamValue::Decimal(s)) => s.clone(),
                        Some(ParamValue::Integer(i)) if *i >= 0 => i.to_string(),
                        _ => return Err(this.err(format!("{param} is not a non-negative number"))),
                    };
                    decimal_units(&text, *decimals).map_err(|m| this.err(m.to_string()))?
                }
                Expr::Literal(s) => decimal_units(s, 0).map_err(|m| this.err(m.to_string()))?,
                Expr::Read(r) => this.read(r).await?,
                Expr::PercentOf { percent, of } => {
                    let pct = match this.instance.param(percent) {
                        Some(ParamValue::Integer(i)) if *i >= 0 => U256::from(*i as u64),
                        _ => return Err(this.err(format!("{percent} is not a percentage"))),
                    };
                    this.read(of).await? * pct / U256::from(100u64)
                }
                Expr::Sum(parts) => {
                    let mut t = U256::ZERO;
                    for p in parts {
                        t = t.saturating_add(this.eval(p).await?);
                    }
                    t
                }
                Expr::Sub(a, b) => this.eval(a).await?.saturating_sub(this.eval(b).await?),
            })
        })
    }

    /// Reads a chain quantity now.
    pub async fn read(&self, r: &'a Read) -> Result<U256, QuestError> {
        let c = self.chain;
        Ok(match r {
            Read::NativeBalance { of } => c.balance(self.addr(of)?).await?,
            Read::Erc20Balance { token, of } => {
                c.erc20_balance(self.addr(token)?, self.addr(of)?).await?
            }
            Read::Erc20Allowance {
                token,
                owner,
                spender,
            } => {
                c.erc20_allowance(self.addr(token)?, self.addr(owner)?, self.addr(spender)?)
                    .await?
            }
            Read::Erc1155Balance { token, of, id } => {
                let id = self.eval(id).await?;
                c.erc1155_balance(self.addr(token)?, self.addr(of)?, id)
                    .await?
            }
            Read::ViewUint {
                target,
                signature,
                of,
                id,
            } => {
                let of = of.as_ref().map(|a| self.addr(a)).transpose()?;
                let id = match id {
                    Some(e) => Some(self.eval(e).await?),
                    None => None,
                };
                self.view_uint(self.addr(target)?, signature, of, id)
                    .await?
            }
            Read::BlockNumber => U256::from(c.block_number().await?),
            Read::Nonce { of } => U256::from(c.nonce(self.addr(of)?).await?),
            Read::BaseFee => {
                let b: Value = c
                    .rpc()
                    .call("eth_getBlockByNumber", serde_json::json!(["latest", false]))
                    .await?;
                let fee = b.get("baseFeePerGas").and_then(Value::as_str);
                fee.and_then(|h| parse_answer_uint(&Value::String(h.to_string())))
                    .ok_or_else(|| self.err("latest block has no baseFeePerGas".into()))?
            }
            Read::GasPrice => {
                let p: String = c.rpc().call("eth_gasPrice", serde_json::json!([])).await?;
                parse_answer_uint(&Value::String(p.clone()))
                    .ok_or_else(|| self.err(format!("eth_gasPrice returned {p:?}")))?
            }
            Read::ViewWord {
                target,
                signature,
                word,
            } => self.view_word(self.addr(target)?, signature, *word).await?,
            Read::Quote {
                router,
                side,
                amount,
                path,
            } => {
                let amount = self.eval(amount).await?;
                let mut tokens = Vec::with_capacity(path.len());
                for t in path {
                    tokens.push(self.addr(t)?);
                }
                let router = self.addr(router)?;
                let out = self
                    .chain
                    .view(router, quote_calldata(*side, amount, &tokens))
                    .await?;
                let amounts = decode_uint_array(&out).ok_or_else(|| {
                    self.err(format!("router {router} returned a malformed quote"))
                })?;
                let pick = match side {
                    QuoteSide::Out => amounts.last(),
                    QuoteSide::In => amounts.first(),
                };
                *pick.ok_or_else(|| self.err(format!("router {router} returned no amounts")))?
            }
            Read::LiquidityAdd {
                pair,
                token_a,
                amount_a,
                amount_b,
                yields,
            } => {
                let pair = self.addr(pair)?;
                let token_a = self.addr(token_a)?;
                let (desired_a, desired_b) =
                    (self.eval(amount_a).await?, self.eval(amount_b).await?);
                let r0 = self.view_word(pair, "getReserves()", 0).await?;
                let r1 = self.view_word(pair, "getReserves()", 1).await?;
                let token0 = self.view_word(pair, "token0()", 0).await?;
                let (ra, rb) = if token0 == U256::from_be_slice(token_a.as_slice()) {
                    (r0, r1)
                } else {
                    (r1, r0)
                };
                let supply = self.view_word(pair, "totalSupply()", 0).await?;
                let (a, b, lp) = add_liquidity_math(desired_a, desired_b, ra, rb, supply)
                    .ok_or_else(|| self.err(format!("pair {pair} has no reserves")))?;
                match yields {
                    LiquidityYield::Lp => lp,
                    LiquidityYield::UsedA => a,
                    LiquidityYield::UsedB => b,
                }
            }
            Read::LiquidityRemove {
                pair,
                token,
                liquidity,
            } => {
                let pair = self.addr(pair)?;
                let liquidity = self.eval(liquidity).await?;
                let held = self.chain.erc20_balance(self.addr(token)?, pair).await?;
                let supply = self.view_word(pair, "totalSupply()", 0).await?;
                if supply.is_zero() {
                    return Err(self.err(format!("pair {pair} has no LP supply")));
                }
                liquidity.saturating_mul(held) / supply
            }
        })
    }

    async fn view_word(
        &self,
        target: Address,
        signature: &str,
        word: u8,
    ) -> Result<U256, QuestError> {
        let out = self
            .chain
            .view(target, selector(signature).to_vec())
            .await?;
        let at = usize::from(word) * 32;
        match out.get(at..at + 32) {
            Some(w) => Ok(U256::from_be_slice(w)),
            None => Err(self.err(format!(
                "{signature} on {target} returned {} bytes, no word {word}",
                out.len()
            ))),
        }
    }

    async fn view_uint(
        &self,
        target: Address,
        signature: &str,
        of: Option<Address>,
        id: Option<U256>,
    ) -> Result<U256, QuestError> {
        let out = self
            .chain
            .view(target, view_calldata(signature, of, id))
            .await?;
        if out.len() < 32 {
            return Err(self.err(format!(
                "{signature} on {target} returned {} bytes",
                out.len()
            )));
        }
        Ok(U256::from_be_slice(&out[..32]))
    }

    fn err(&self, message: String) -> QuestError {
        QuestError::Instance {
            task: self.instance.task_id.clone(),
            field: None,
            message,
        }
    }

    /// Phase 1, before the transaction: expected values and "before" quantities of every check.
    pub async fn before(&self, checks: &'a [CheckSpec]) -> Result<Vec<Pre>, QuestError> {
        let mut out = Vec::with_capacity(checks.len());
        for c in checks {
            let mut pre = Pre::default();
            match &c.check {
                Check::TxValue { expected, .. }
                | Check::AllowanceEquals { expected, .. }
                | Check::ViewEquals { expected, .. } => {
                    pre.expected = Some(self.eval(expected).await?);
                }
                Check::NativeDelta {
                    account, expected, ..
                } => {
                    pre.expected = Some(self.eval(expected).await?);
                    pre.before = Some(self.chain.balance(self.addr(account)?).await?);
                }
                Check::Erc20Delta {
                    token,
                    account,
                    expected,
                    ..
                } => {
                    pre.expected = Some(self.eval(expected).await?);
                    pre.before = Some(
                        self.chain
                            .erc20_balance(self.addr(token)?, self.addr(account)?)
                            .await?,
                    );
                }
                Check::Erc1155Delta {
                    token,
                    account,
                    id,
                    expected,
                    ..
                } => {
                    let id = self.eval(id).await?;
                    pre.expected = Some(self.eval(expected).await?);
                    pre.before = Some(
                        self.chain
                            .erc1155_balance(self.addr(token)?, self.addr(account)?, id)
                            .await?,
                    );
                    pre.id = Some(id);
                }
                Check::NftOwner { id, .. } | Check::NftApproved { id, .. } => {
                    pre.id = Some(self.eval(id).await?);
                }
                // Query answers are compared with the chain at validation time.
                Check::AnswerEquals { .. }
                | Check::AnswerTextEquals { .. }
                | Check::TxSuccess
                | Check::TxTo { .. }
                | Check::Selector { .. }
                | Check::EmptyCalldata
                | Check::CalldataContains { .. }
                | Check::NftOperator { .. } => {}
            }
            out.push(pre);
        }
        Ok(out)
    }

    /// Phase 2, after the transaction (or the answer): one result per check of `task`, judged
    /// under the task's tolerances and, from the same observation, the paper's (`mode`).
    pub async fn after(
        &self,
        task: &'a TaskSpec,
        pre: &[Pre],
        evidence: &Evidence,
        mode: PaperTolerance,
    ) -> Result<Vec<CheckResult>, QuestError> {
        let mut out = Vec::with_capacity(task.checks.len());
        for (c, pre) in task.checks.iter().zip(pre) {
            let v = self.evaluate(&c.check, pre, evidence).await?;
            let paper_passed = match &v.amount {
                Some((expected, Some(diff))) => {
                    let own = check_tolerance(&c.check);
                    let tol = paper::tolerance(&c.check, &task.subcategory, &own, mode);
                    within(*expected, *diff, &tol)
                }
                Some((_, None)) => false,
                None => v.passed,
            };
            out.push(CheckResult {
                name: c.name.clone(),
                family: c.check.family().into(),
                weight: c.weight,
                expected: v.expected,
                actual: v.actual,
                passed: v.passed,
                exact: v.exact,
                paper: c.paper_part(),
                paper_passed,
                well_formed: v.well_formed,
                guard: c.guard,
                unit: self.unit(&c.check),
            });
        }
        Ok(out)
    }

    /// The unit an amount check's numbers are in (see [`amount_unit`]).
    fn unit(&self, check: &Check) -> Option<AmountUnit> {
        amount_unit(check, self.instance, self.manifest)
    }

    async fn evaluate(
        &self,
        check: &'a Check,
        pre: &Pre,
        evidence: &Evidence,
    ) -> Result<Verdict, QuestError> {
        let tx = match evidence {
            Evidence::Tx(t) => Some(t),
            Evidence::Answer(_) | Evidence::Episode { .. } => None,
        };
        let fee = match evidence {
            Evidence::Tx(t) => Some(t.fee),
            Evidence::Episode { fee, .. } => Some(*fee),
            Evidence::Answer(_) => None,
        };
        let no_tx = || Verdict::text("a transaction", "no transaction", false);
        let exp = pre.expected.unwrap_or_default();
        Ok(match check {
            Check::TxSuccess => match tx {
                Some(t) => Verdict::text(
                    "status 1",
                    if t.receipt.success {
                        "status 1".to_string()
                    } else {
                        format!(
                            "reverted: {}",
                            t.receipt.revert_reason.clone().unwrap_or_default()
                        )
                    },
                    t.receipt.success,
                ),
                None => no_tx(),
            },
            Check::TxTo { target } => {
                let want = self.addr(target)?;
                match tx {
                    Some(t) => Verdict::text(want.to_string(), t.to.to_string(), t.to == want),
                    None => no_tx(),
                }
            }
            Check::Selector { accepted } => match tx {
                Some(t) => {
                    let got = t.data.get(..4).map(hex::encode).unwrap_or_default();
                    let ok = accepted
                        .iter()
                        .any(|s| t.data.len() >= 4 && t.data[..4] == selector(s));
                    Verdict::text(
                        accepted
                            .iter()
                            .map(|s| format!("{s} 0x{}", hex::encode(selector(s))))
                            .collect::<Vec<_>>()
                            .join(" | "),
                        format!("0x{got}"),
                        ok,
                    )
                }
                None => no_tx(),
            },
            Check::EmptyCalldata => match tx {
                Some(t) => Verdict::text("0x", format!("{}", t.data), t.data.is_empty()),
                None => no_tx(),
            },
            Check::CalldataContains { param } => {
                let text = self
                    .instance
                    .param(param)
                    .map(|v| v.render())
                    .unwrap_or_default();
                match tx {
                    Some(t) => {
                        let ok = !text.is_empty()
                            && t.data.windows(text.len()).any(|w| w == text.as_bytes());
                        Verdict::text(
                            format!("calldata containing {text:?}"),
                            String::from_utf8_lossy(&t.data).into_owned(),
                            ok,
                        )
                    }
                    None => no_tx(),
                }
            }
            Check::TxValue { tolerance, .. } => match tx {
                Some(t) => Verdict::amount(exp, Signed::Pos(t.value), tolerance),
                None => no_tx(),
            },
            Check::NativeDelta {
                account,
                direction,
                exclude_gas,
                tolerance,
                ..
            } => {
                let who = self.addr(account)?;
                let after = self.chain.balance(who).await?;
                let mut before = pre.before.unwrap_or_default();
                if *exclude_gas && who == self.instance.agent {
                    if let Some(f) = fee {
                        before = before.saturating_sub(f);
                    }
                }
                Verdict::amount(exp, delta(before, after, *direction), tolerance)
            }
            Check::Erc20Delta {
                token,
                account,
                direction,
                tolerance,
                ..
            } => {
                let after = self
                    .chain
                    .erc20_balance(self.addr(token)?, self.addr(account)?)
                    .await?;
                Verdict::amount(
                    exp,
                    delta(pre.before.unwrap_or_default(), after, *direction),
                    tolerance,
                )
            }
            Check::Erc1155Delta {
                token,
                account,
                direction,
                ..
            } => {
                let after = self
                    .chain
                    .erc1155_balance(
                        self.addr(token)?,
                        self.addr(account)?,
                        pre.id.unwrap_or_default(),
                    )
                    .await?;
                Verdict::amount(
                    exp,
                    delta(pre.before.unwrap_or_default(), after, *direction),
                    &Tolerance::default(),
                )
            }
            Check::AllowanceEquals {
                token,
                owner,
                spender,
                tolerance,
                ..
            } => {
                let got = self
                    .chain
                    .erc20_allowance(self.addr(token)?, self.addr(owner)?, self.addr(spender)?)
                    .await?;
                Verdict::amount(exp, Signed::Pos(got), tolerance)
            }
            Check::NftOwner { token, owner, .. } => {
                let want = self.addr(owner)?;
                let got = self
                    .chain
                    .erc721_owner(self.addr(token)?, pre.id.unwrap_or_default())
                    .await;
                match got {
                    Ok(a) => Verdict::text(want.to_string(), a.to_string(), a == want),
                    Err(e) => Verdict::text(want.to_string(), format!("error: {e}"), false),
                }
            }
            Check::NftApproved {
                token, approved, ..
            } => {
                let want = self.addr(approved)?;
                let got = self
                    .chain
                    .erc721_approved(self.addr(token)?, pre.id.unwrap_or_default())
                    .await?;
                Verdict::text(want.to_string(), got.to_string(), got == want)
            }
            Check::NftOperator {
                token,
                owner,
                operator,
                approved,
            } => {
                let got = self
                    .chain
                    .approved_for_all(self.addr(token)?, self.addr(owner)?, self.addr(operator)?)
                    .await?;
                Verdict::text(approved.to_string(), got.to_string(), got == *approved)
            }
            Check::ViewEquals {
                target,
                signature,
                of,
                ..
            } => {
                let of = of.as_ref().map(|a| self.addr(a)).transpose()?;
                let got = self
                    .view_uint(self.addr(target)?, signature, of, None)
                    .await?;
                Verdict::amount(exp, Signed::Pos(got), &Tolerance::default())
            }
            Check::AnswerEquals {
                field,
                expected,
                tolerance,
            } => {
                let want = self.eval(expected).await?;
                let got = match evidence {
                    Evidence::Answer(v) | Evidence::Episode { answer: v, .. } => v.get(field),
                    Evidence::Tx(_) => None,
                };
                match got.map(parse_answer_uint) {
                    Some(Some(v)) => Verdict::amount(want, Signed::Pos(v), tolerance),
                    Some(None) => Verdict::malformed(
                        want.to_string(),
                        format!("not an integer: {}", got.cloned().unwrap_or_default()),
                    ),
                    None => Verdict::malformed(want.to_string(), format!("field {field} missing")),
                }
            }
            Check::AnswerTextEquals {
                field,
                target,
                signature,
                id,
            } => {
                let id = match id {
                    Some(e) => Some(self.eval(e).await?),
                    None => None,
                };
                let out = self
                    .chain
                    .view(self.addr(target)?, view_calldata(signature, None, id))
                    .await?;
                let want = decode_abi_string(&out)
                    .ok_or_else(|| self.err(format!("{signature} did not return an ABI string")))?;
                let got = match evidence {
                    Evidence::Answer(v) | Evidence::Episode { answer: v, .. } => v.get(field),
                    Evidence::Tx(_) => None,
                };
                match got {
                    Some(Value::String(g)) => {
                        let ok = g.trim() == want;
                        Verdict::text(want, g.clone(), ok)
                    }
                    Some(other) => Verdict::malformed(want, format!("not a string: {other}")),
                    None => Verdict::malformed(want, format!("field {field} missing")),
                }
            }
        })
    }
}

/// The 4-byte selector of a signature.
pub fn selector(signature: &str) -> [u8; 4] {
    let h = keccak256(signature.as_bytes());
    [h[0], h[1], h[2], h[3]]
}

/// Calldata of a view call: the selector, then the optional address argument and the optional
/// uint argument, one ABI word each.
fn view_calldata(signature: &str, of: Option<Address>, id: Option<U256>) -> Vec<u8> {
    let mut data = selector(signature).to_vec();
    if let Some(a) = of {
        data.extend_from_slice(&[0u8; 12]);
        data.extend_from_slice(a.as_slice());
    }
    if let Some(id) = id {
        data.extend_from_slice(&id.to_be_bytes::<32>());
    }
    data
}

/// Decodes the return data of a view returning one `string` (offset, length, bytes); `None`
/// when it is malformed or not UTF-8.
fn decode_abi_string(out: &[u8]) -> Option<String> {
    let word = |at: usize| -> Option<usize> {
        let w = out.get(at..at.checked_add(32)?)?;
        let v = U256::from_be_slice(w);
        usize::try_from(v).ok()
    };
    let off = word(0)?;
    let len = word(off)?;
    let start = off.checked_add(32)?;
    let bytes = out.get(start..start.checked_add(len)?)?;
    String::from_utf8(bytes.to_vec()).ok()
}

/// ABI calldata of `getAmountsOut(uint256,address[])` / `getAmountsIn(uint256,address[])`.
fn quote_calldata(side: QuoteSide, amount: U256, path: &[Address]) -> Vec<u8> {
    let sig = match side {
        QuoteSide::Out => "getAmountsOut(uint256,address[])",
        QuoteSide::In => "getAmountsIn(uint256,address[])",
    };
    let mut d = selector(sig).to_vec();
    d.extend_from_slice(&amount.to_be_bytes::<32>());
    d.extend_from_slice(&U256::from(64u64).to_be_bytes::<32>());
    d.extend_from_slice(&U256::from(path.len()).to_be_bytes::<32>());
    for a in path {
        d.extend_from_slice(&[0u8; 12]);
        d.extend_from_slice(a.as_slice());
    }
    d
}

/// Router02 `_addLiquidity` + pair `mint` arithmetic: `(used_a, used_b, lp)`; `None` for an
/// empty pool (no reserves or supply).
fn add_liquidity_math(
    desired_a: U256,
    desired_b: U256,
    ra: U256,
    rb: U256,
    supply: U256,
) -> Option<(U256, U256, U256)> {
    if ra.is_zero() || rb.is_zero() || supply.is_zero() {
        return None;
    }
    let b_optimal = desired_a.saturating_mul(rb) / ra;
    let (a, b) = if b_optimal <= desired_b {
        (desired_a, b_optimal)
    } else {
        (desired_b.saturating_mul(ra) / rb, desired_b)
    };
    let lp = (a.saturating_mul(supply) / ra).min(b.saturating_mul(supply) / rb);
    Some((a, b, lp))
}

/// Decodes a return value that is a single dynamic `uint256[]`; `None` when malformed.
fn decode_uint_array(out: &[u8]) -> Option<Vec<U256>> {
    let word = |i: usize| out.get(i..i + 32).map(U256::from_be_slice);
    let off = usize::try_from(word(0)?).ok()?;
    let len = usize::try_from(word(off)?).ok()?;
    if len > 64 {
        return None;
    }
    (0..len).map(|k| word(off + 32 + 32 * k)).collect()
}

/// An integer answer: a JSON number, decimal text or 0x-hex text.
fn parse_answer_uint(v: &Value) -> Option<U256> {
    match v {
        Value::Number(n) => n.as_u64().map(U256::from),
        Value::String(s) => {
            let s = s.trim();
            match s.strip_prefix("0x") {
                Some(h) => U256::from_str_radix(h, 16).ok(),
                None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    U256::from_str_radix(s, 10).ok()
                }
                None => None,
            }
        }
        _ => None,
    }
}

/// A balance change in the expected direction (Pos) or against it (Neg).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signed {
    Pos(U256),
    Neg(U256),
}

fn delta(before: U256, after: U256, dir: Direction) -> Signed {
    let (up, down) = if after >= before {
        (after - before, U256::ZERO)
    } else {
        (U256::ZERO, before - after)
    };
    match dir {
        Direction::Increase if down.is_zero() => Signed::Pos(up),
        Direction::Increase => Signed::Neg(down),
        Direction::Decrease if up.is_zero() => Signed::Pos(down),
        Direction::Decrease => Signed::Neg(up),
    }
}

#[derive(Debug)]
struct Verdict {
    expected: String,
    actual: String,
    passed: bool,
    exact: bool,
    /// An amount comparison: the expected value and |actual − expected| (`None` when the amount
    /// moved the wrong way), so another tolerance can judge the same observation.
    amount: Option<(U256, Option<U256>)>,
    /// `false` when an answer field was missing or of the wrong type.
    well_formed: bool,
}

/// The tolerance a check declares (exact for families without one).
fn check_tolerance(check: &Check) -> Tolerance {
    match check {
        Check::TxValue { tolerance, .. }
        | Check::NativeDelta { tolerance, .. }
        | Check::Erc20Delta { tolerance, .. }
        | Check::AllowanceEquals { tolerance, .. }
        | Check::AnswerEquals { tolerance, .. } => tolerance.clone(),
        _ => Tolerance::default(),
    }
}

impl Verdict {
    fn text(expected: impl Into<String>, actual: impl Into<String>, passed: bool) -> Self {
        Self {
            expected: expected.into(),
            actual: actual.into(),
            passed,
            exact: passed,
            amount: None,
            well_formed: true,
        }
    }

    /// An answer that is missing or of the wrong type.
    fn malformed(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Self {
            well_formed: false,
            ..Self::text(expected, actual, false)
        }
    }

    fn amount(expected: U256, actual: Signed, tol: &Tolerance) -> Self {
        let (passed, exact, shown, diff) = match actual {
            Signed::Pos(a) => {
                let diff = if a > expected {
                    a - expected
                } else {
                    expected - a
                };
                (
                    within(expected, diff, tol),
                    diff.is_zero(),
                    a.to_string(),
                    Some(diff),
                )
            }
            Signed::Neg(a) => (false, false, format!("-{a} (wrong direction)"), None),
        };
        let mut exp = expected.to_string();
        if tol.rel_bps > 0 || tol.abs.is_some() {
            exp.push_str(&format!(
                " (±{} bps{})",
                tol.rel_bps,
                tol.abs
                    .as_ref()
                    .map(|a| format!(" or {a}"))
                    .unwrap_or_default()
            ));
        }
        Self {
            expected: exp,
            actual: shown,
            passed,
            exact,
            amount: Some((expected, diff)),
            well_formed: true,
        }
    }
}

/// |actual − expected| ≤ max(expected × rel_bps / 10 000, abs).
fn within(expected: U256, diff: U256, tol: &Tolerance) -> bool {
    let rel = expected.saturating_mul(U256::from(tol.rel_bps)) / U256::from(10_000u64);
    let abs = tol
        .abs
        .as_deref()
        .and_then(|a| decimal_units(a, 0).ok())
        .unwrap_or_default();
    diff <= rel.max(abs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(n: u64) -> U256 {
        U256::from(n)
    }

    #[test]
    fn tolerance_and_direction() {
        let t = |rel_bps, abs: Option<&str>| Tolerance {
            rel_bps,
            abs: abs.map(str::to_string),
        };
        let cases = [
            (u(1000), Signed::Pos(u(1000)), t(0, None), true, true),
            (u(1000), Signed::Pos(u(1001)), t(0, None), false, false),
            (u(1000), Signed::Pos(u(1010)), t(100, None), true, false),
            (u(1000), Signed::Pos(u(1011)), t(100, None), false, false),
            (u(1000), Signed::Pos(u(990)), t(0, Some("10")), true, false),
            (u(1000), Signed::Neg(u(1000)), t(10_000, None), false, false),
        ];
        for (exp, act, tol, pass, exact) in cases {
            let v = Verdict::amount(exp, act, &tol);
            assert_eq!((v.passed, v.exact), (pass, exact), "{exp} {act:?} {tol:?}");
        }
    }

    #[test]
    fn deltas_follow_the_direction() {
        assert_eq!(delta(u(10), u(15), Direction::Increase), Signed::Pos(u(5)));
        assert_eq!(delta(u(10), u(5), Direction::Increase), Signed::Neg(u(5)));
        assert_eq!(delta(u(10), u(5), Direction::Decrease), Signed::Pos(u(5)));
        assert_eq!(delta(u(10), u(10), Direction::Decrease), Signed::Pos(u(0)));
    }

    #[test]
    fn selectors_match_known_values() {
        assert_eq!(
            hex::encode(selector("transfer(address,uint256)")),
            "a9059cbb"
        );
        assert_eq!(
            hex::encode(selector("approve(address,uint256)")),
            "095ea7b3"
        );
        assert_eq!(
            hex::encode(selector("transferAndCall(address,uint256,bytes)")),
            "4000aea0"
        );
    }

    #[test]
    fn view_calldata_encodes_the_address_argument() {
        let a: Address = "0x00000000000000000000000000000000000000aa"
            .parse()
            .unwrap();
        let cases = [
            ("totalStaked()", None, None, "817b1cd2".to_string()),
            (
                "userInfo(address)",
                Some(a),
                None,
                format!("1959a002{}aa", "0".repeat(62)),
            ),
            (
                "ownerOf(uint256)",
                None,
                Some(u(7)),
                format!("6352211e{}07", "0".repeat(62)),
            ),
        ];
        for (sig, of, id, want) in cases {
            assert_eq!(hex::encode(view_calldata(sig, of, id)), want, "{sig}");
        }
    }

    #[test]
    fn abi_strings_decode_and_malformed_data_is_rejected() {
        let mut ok = Vec::new();
        ok.extend_from_slice(&u(32).to_be_bytes::<32>());
        ok.extend_from_slice(&u(3).to_be_bytes::<32>());
        let mut tail = b"USD".to_vec();
        tail.resize(32, 0);
        ok.extend_from_slice(&tail);
        let mut huge = ok.clone();
        huge[32..64].copy_from_slice(&U256::MAX.to_be_bytes::<32>());
        let cases: [(&[u8], Option<&str>); 4] = [
            (&ok, Some("USD")),
            (&ok[..40], None),
            (&huge, None),
            (&[], None),
        ];
        for (data, want) in cases {
            assert_eq!(decode_abi_string(data).as_deref(), want);
        }
    }

    #[test]
    fn quote_calldata_and_array_decoding() {
        let a = Address::repeat_byte(0x11);
        let b = Address::repeat_byte(0x22);
        let d = quote_calldata(QuoteSide::Out, u(5), &[a, b]);
        assert_eq!(hex::encode(&d[..4]), "d06ca61f");
        assert_eq!(d.len(), 4 + 32 * 5);
        assert_eq!(&d[4 + 32 * 3 + 12..4 + 32 * 4], a.as_slice());
        let d = quote_calldata(QuoteSide::In, u(5), &[a, b]);
        assert_eq!(hex::encode(&d[..4]), "1f00ca74");
        let enc = |words: &[u64]| -> Vec<u8> {
            words
                .iter()
                .flat_map(|w| U256::from(*w).to_be_bytes::<32>())
                .collect()
        };
        let cases: [(Vec<u8>, Option<Vec<U256>>); 4] = [
            (enc(&[32, 2, 7, 9]), Some(vec![u(7), u(9)])),
            (enc(&[32, 0]), Some(vec![])),
            (enc(&[32, 3, 7, 9]), None),
            (vec![1, 2, 3], None),
        ];
        for (bytes, want) in cases {
            assert_eq!(decode_uint_array(&bytes), want);
        }
        let mut huge = enc(&[32]);
        huge.extend_from_slice(&[0xff; 32]);
        assert_eq!(decode_uint_array(&huge), None);
    }

    #[test]
    fn add_liquidity_takes_the_pool_ratio() {
        // (desired a, desired b, reserve a, reserve b, supply) -> (used a, used b, lp)
        let cases = [
            ((100, 100, 1000, 1000, 1000), Some((100, 100, 100))),
            ((100, 500, 1000, 2000, 500), Some((100, 200, 50))),
            ((100, 50, 1000, 2000, 500), Some((25, 50, 12))),
            ((100, 100, 0, 1000, 1000), None),
            ((100, 100, 1000, 1000, 0), None),
        ];
        for ((da, db, ra, rb, ts), want) in cases {
            let got = add_liquidity_math(u(da), u(db), u(ra), u(rb), u(ts));
            assert_eq!(
                got,
                want.map(|(a, b, l)| (u(a), u(b), u(l))),
                "{da} {db} {ra} {rb} {ts}"
            );
        }
    }

    #[test]
    fn answers_parse_as_integers() {
        use serde_json::json;
        assert_eq!(parse_answer_uint(&json!("123")), Some(u(123)));
        assert_eq!(parse_answer_uint(&json!("0x10")), Some(u(16)));
        assert_eq!(parse_answer_uint(&json!(7)), Some(u(7)));
        assert_eq!(parse_answer_uint(&json!("1.5")), None);
        assert_eq!(parse_answer_uint(&json!(null)), None);
    }
}
