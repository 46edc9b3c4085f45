//! The paper's prompts (the `paper` prompt set): the system prompt of Appendix B.2, the address
//! book of Appendix B.3, and the way the authors' release assembles them into messages for the
//! direct and the retrieval-augmented setting.
//!
//! Wording is the release's, byte for byte where the paper prints the same text
//! (`data/7_generate_single_step_benchmark_data.py` for the single-step instruction,
//! `data/8_1_generate_multi_steps_benchmark_data.py` for the multi-step one — the paper prints only
//! the first; `data/9_generate_address_book.py` for the book's Markdown;
//! `experiment/evaluate_models/{zero_shot,three_shot}.py` for the assembly). Nothing Crucible adds
//! for its own models appears here: no sender address, no base-units convention beyond the
//! schema's comments, no decimals, no Crucible-local contracts. Those hints are the `assisted`
//! set ([`crate::retrieve::build_prompt`]). This module must not read the chain or the pool; it
//! renders what it is given.

use super::reference_code::release_output;
use super::retrieve::Prompt;
use super::schema::Instance;

/// One section of the paper's address book: its heading and `(name, address)` rows, as printed.
pub type BookSection = (&'static str, &'static [(&'static str, &'static str)]);

/// Appendix B.3, every row in the paper's order and spelling (addresses exactly as printed: some
/// checksummed, some lower case).
pub const PAPER_BOOK: &[BookSection] = &[
    (
        "Tokens",
        &[
            ("USDT", "0xdAC17F958D2ee523a2206206994597C13D831ec7"),
            ("USDC", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eb48"),
            ("DAI", "0x6B175474E89094C44Da98b954EedeAC495271d0F"),
            ("WBTC", "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599"),
            ("WETH", "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"),
            ("PYUSD", "0x6c3ea9036406852006290770BEdFcAbA0e23A0e8"),
            ("LINK", "0x514910771af9ca656af840dff83e8264ecf986ca"),
            ("UNI", "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984"),
            ("fwWETH", "0xa250cc729bb3323e7933022a67b52200fe354767"),
            ("SPX", "0xe0f63a424a4439cbe457d80e4f4b51ad25b2c56c"),
            ("PAXG", "0x45804880de22913dafe09f4980848ece6ecbaf78"),
            ("AAVE", "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9"),
            ("ENA", "0x57e114b691db790c35207b2e685d4a43181e6061"),
            ("XAUt", "0x68749665ff8d2d112fa859aa293f07a622782f38"),
            ("CRV", "0xd533a949740bb3306d119cc777fa900ba034cd52"),
            ("USDS", "0xdc035d45d973e3ec169d2276ddab16f1e407384f"),
        ],
    ),
    (
        "DEX / Routers",
        &[
            (
                "Uniswap_V2_Router",
                "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D",
            ),
            (
                "Uniswap_V3_Router_2",
                "0x68b3465833fb72A70ecDF485E0e4C7bD8665Fc45",
            ),
            (
                "Universal_Router",
                "0x3fc91a3afd70395cd496c647d5a6cc9d4b2b7fad",
            ),
            (
                "SushiSwap_Router",
                "0xd9e1cE17f2641f24aE83637ab66a2cca9C378B9F",
            ),
            (
                "1inch_Aggregation_Router_V5",
                "0x1111111254EEB25477B68fb85Ed929f73A960582",
            ),
            (
                "1inch_Aggregation_Router_V6",
                "0x111111125421cA6dc452d289314280a0f8842A65",
            ),
            (
                "0x_Protocol_V4",
                "0xDef1C0ded9bec7F1a1670819833240f027b25EfF",
            ),
            ("Curve_Router", "0x99a58482BD75cbab83b27EC03CA68fF489b5788f"),
            (
                "Balancer_V2_Vault",
                "0xBA12222222228d8Ba445958a75a0704d566BF2C8",
            ),
            ("Kyberswap_V2", "0x6131B5fae19EA4f9D964eAc0408E4408b66337b5"),
        ],
    ),
    (
        "Lending / Staking",
        &[
            (
                "Aave_V2_Lending_Pool",
                "0x7d2768dE32b0b80b7a3454c06BdAc94A69DDc7A9",
            ),
            (
                "Aave_V3_Lending_Pool",
                "0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2",
            ),
            ("Lido_stETH", "0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84"),
            (
                "Rocket_Pool_RETH",
                "0xae78736Cd615f374D3085123A210448E74Fc6393",
            ),
            (
                "Spark_V1_Lending_Pool",
                "0xC13e21B648A5Ee794902342038FF3aDAB66BE987",
            ),
            (
                "Morpho_Blue_V2",
                "0xBBBBBbbBBb9cC5e90e3b3Af64bdAF62C37EEFFCb",
            ),
            ("Compound_V2", "0x3d9819210A31b4961b30EF54bE2aeD79B9c9Cd3B"),
            (
                "Compound_V3_USDC_Market",
                "0xc3d688B66703497DAA19211EEdff47f25384cdc3",
            ),
            (
                "Compound_V3_WETH_Market",
                "0xA17581A9E3356d9A858b789D68B4d866e593aE94",
            ),
        ],
    ),
    (
        "NFT",
        &[
            (
                "Opensea_Seaport",
                "0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC",
            ),
            ("Blur_Blend", "0x29469395eAf6f95920E59F858042f0e28D98a20B"),
            ("CryptoPunks", "0xb47e3cd837dDF8e4c57F05d70Ab865de6e193BBB"),
        ],
    ),
    (
        "Bridges / Infrastructure",
        &[
            (
                "Across_Spoke_Pool",
                "0x5c7BC2d53d245f5021E17E266bb792010103510c",
            ),
            (
                "Optimism_L1_Standard_Bridge",
                "0x99C9fc46f92E8a1c0deC1b1747d010903E884bE1",
            ),
            (
                "Arbitrum_L1_Standard_Bridge",
                "0x8315177aB297bA92A06054cE80a67Ed4DBd7ed3a",
            ),
            (
                "Base_L1_Standard_Bridge",
                "0x3154Cf16ccdb4C6d922629664174b904d80F2C35",
            ),
            (
                "Polygon_RootChainManager",
                "0xA0c68C638235ee32657e8f720a23ceC1bFc77C77",
            ),
            (
                "Stargate_Route",
                "0x8731d54E9D02c286767d56ac03e8037C07e01e98",
            ),
            (
                "Hop_Ethereum_Bridge",
                "0xb8901acB165ed027E32754E0FFe830802919727f",
            ),
            (
                "Synapse_Bridge",
                "0x2796317b0fF8538F253012862c06787Adfb8cEb6",
            ),
            (
                "Celer_cBridge_V2",
                "0x5427FEFA711Eff984124bFBB1AB6fbf5E3DA1820",
            ),
            (
                "zkSync_Era_L1_DiamondProxy",
                "0x32400084C286CF3E17e7B677ea9583e60a000324",
            ),
        ],
    ),
];

/// Every `(name, address)` row of [`PAPER_BOOK`], in order.
pub fn paper_book_rows() -> impl Iterator<Item = (&'static str, &'static str)> {
    PAPER_BOOK.iter().flat_map(|(_, rows)| rows.iter().copied())
}

/// The address book as the models saw it: Appendix B.3's Markdown (introduction, one table per
/// section, each address in backticks, a blank line after each table).
pub fn paper_book_markdown() -> String {
    let mut out = String::from(
        "You may refer to the following address book for commonly used Ethereum protocol \
         addresses. This can help you avoid mistakes when inputting contract addresses for \
         popular tokens and protocols.\n\n",
    );
    out.push_str("## Additional Information: Helpful Ethereum Address Book\n\n");
    out.push_str(
        "This address book provides a mapping between common protocol names (just a \
         description, not contract name), token symbols, and their on-chain addresses.\n\n",
    );
    for (section, rows) in PAPER_BOOK {
        out.push_str(&format!("### {section}\n"));
        out.push_str("| Name / Symbol | Contract Address |\n");
        out.push_str("| :--- | :--- |\n");
        for (name, address) in *rows {
            out.push_str(&format!("| **{name}** | `{address}` |\n"));
        }
        out.push('\n');
    }
    out
}

/// Appendix B.2: the single-step system prompt (ends with a blank line, as in the release).
pub const SINGLE_STEP_INSTRUCTION: &str = "You are a DeFi execution planner.\n\n\
Your task is to convert a user's high-level intent into a SINGLE on-chain action represented as a JSON object.\n\n\
Output requirements:\n\
- Output JSON only, no explanations.\n\
- Follow the exact schema defined below.\n\
- For each parameter, you must provide both its Solidity type and the specific value inferred from the intent.\n\n\
JSON schema:\n\
{\n\
\x20 \"contract\": string,              // contract name (e.g., \"UniswapV2Router02\")\n\
\x20 \"contract_address\": string,      // contract address (e.g., \"0x7a250d5630b4cf539739df2c5dacabf6959a1e\")\n\
\x20 \"function\": string,              // function name (e.g., \"transfer\")\n\
\x20 \"params\": {                      // map of parameters\n\
\x20   \"<param_name>\": {\n\
\x20     \"type\": string,              // Solidity type (e.g., \"address\", \"uint256\")\n\
\x20     \"val\": any                   // specific value inferred from the intent\n\
\x20   }\n\
\x20   ... // more parameters if needed \n\
\x20 },\n\
\x20 \"value\": float                   // Ether amount sent with the transaction (in ETH)\n\
}\n\n";

/// The multi-step system prompt of the authors' release (the paper prints only the single-step
/// one; its multi-step instances carry this instruction).
pub const MULTI_STEP_INSTRUCTION: &str = "You are a DeFi execution planner.\n\n\
Your task is to convert a user's high-level intent into an ordered list of on-chain actions on Ethereum. Each action must be represented as a JSON object within a list.\n\n\
Output requirements:\n\
- Output a JSON list only, no explanations.\n\
- Follow the exact schema defined below for each action.\n\
- For each parameter, you must provide both its Solidity type and the specific value (val) inferred from the intent.\n\
- Ensure the actions are in the correct logical execution order.\n\n\
JSON schema for each action:\n\
{\n\
\x20 \"contract\": string,              // contract name or role (e.g., \"TetherToken\")\n\
\x20 \"contract_address\": string,      // contract address (e.g., \"0x7a250d5630b4cf539739df2c5dacabf6959a1e\")\n\
\x20 \"function\": string,              // function to be called (e.g., \"approve\")\n\
\x20 \"params\": {                      // map of parameters\n\
\x20   \"<param_name>\": {\n\
\x20     \"type\": string,              // Solidity type (e.g., \"address\", \"uint256\", \"bytes\")\n\
\x20     \"val\": any                   // specific value inferred from the intent (address hex, large integer string, etc.)\n\
\x20   }\n\
\x20   ... // more parameters if needed\n\
\x20 },\n\
\x20 \"value\": float                   // the amount of Ether (in ETH) sent with the transaction; set to 0.0 if not applicable.\n\
}\n\n\
Example structure:\n\
[\n\
\x20 { \"contract\": \"TokenA\", \"function\": \"approve\", \"params\": { \"spender\": {\"type\": \"address\", \"val\": \"0x...\"}, \"amount\": {\"type\": \"uint256\", \"val\": \"1000...\"} }, \"value\": 0.0 },\n\
\x20 { \"contract\": \"DexRouter\", \"function\": \"swap\", \"params\": { ... }, \"value\": 0.0 }\n\
]\n";

/// The instruction an instance carries: single- or multi-step by the shape of its ground truth.
pub fn instruction_for(instance: &Instance) -> &'static str {
    if instance.ground_truth.is_multi() {
        MULTI_STEP_INSTRUCTION
    } else {
        SINGLE_STEP_INSTRUCTION
    }
}

/// The dataset's `input` field: `User intent:\n<intent>`.
pub fn release_input(instance: &Instance) -> String {
    format!("User intent:\n{}", instance.intent)
}

/// The paper's direct prompt: system = instruction + `\n` + address book; user = the input.
pub fn direct_prompt(instance: &Instance) -> Prompt {
    Prompt {
        system: format!("{}\n{}", instruction_for(instance), paper_book_markdown()),
        user: release_input(instance),
        demonstrations: Vec::new(),
    }
}

/// The paper's retrieval-augmented prompt: the demonstrations go into the system message after the
/// book, each as `--- Example i ---` with its input and the release's rendering of its output; the
/// user message is the release's `Now, please process the following intent:\nUser intent: ` +
/// the input (which itself starts with `User intent:`: the release prints the label twice).
pub fn retrieval_prompt(instance: &Instance, demonstrations: &[&Instance]) -> Prompt {
    let mut examples = String::from("\n## Reference Examples (Few-Shot):\n");
    for (i, demo) in demonstrations.iter().enumerate() {
        examples.push_str(&format!(
            "--- Example {} ---\nExample Input: {}\nExample Output: {}\n\n",
            i + 1,
            release_input(demo),
            release_output(&demo.ground_truth)
        ));
    }
    Prompt {
        system: format!(
            "{}\n\n{}\n\n{examples}",
            instruction_for(instance),
            paper_book_markdown()
        ),
        user: format!(
            "Now, please process the following intent:\nUser intent: {}",
            release_input(instance)
        ),
        demonstrations: demonstrations.iter().map(|d| d.id.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::{Call, Metadata, Param, Truth};

    fn call(value: serde_json::Value) -> Call {
        Call {
            contract: "USDC".into(),
            contract_address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48".into(),
            function: "approve".into(),
            params: vec![
                ("spender".into(), Param::new("address", json!("0xabc"))),
                ("ok".into(), Param::new("bool", json!(true))),
                ("ids".into(), Param::new("uint256[]", json!(["1", "2"]))),
            ],
            value,
        }
    }

    /// Demonstration outputs as the release prints them: `json.dumps` for a single-step output
    /// (the dataset stores it as a string), Python's `repr` of the list for a multi-step one.
    #[test]
    fn demonstration_outputs_are_printed_as_the_release_holds_them() {
        let single = Truth::Single(call(json!(0)));
        assert_eq!(
            release_output(&single),
            r#"{"contract": "USDC", "contract_address": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", "function": "approve", "params": {"spender": {"type": "address", "val": "0xabc"}, "ok": {"type": "bool", "val": true}, "ids": {"type": "uint256[]", "val": ["1", "2"]}}, "value": 0.0}"#
        );
        let multi = Truth::Multi(vec![call(json!(0.5)), call(json!(0))]);
        let one = "{'contract': 'USDC', 'contract_address': '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'function': 'approve', 'params': {'spender': {'type': 'address', 'val': '0xabc'}, 'ok': {'type': 'bool', 'val': True}, 'ids': {'type': 'uint256[]', 'val': ['1', '2']}}, 'value': ";
        assert_eq!(release_output(&multi), format!("[{one}0.5}}, {one}0.0}}]"));
    }

    #[test]
    fn the_book_renders_as_the_release_writes_it() {
        let md = paper_book_markdown();
        assert!(md.starts_with("You may refer to the following address book for commonly used Ethereum protocol addresses. This can help you avoid mistakes when inputting contract addresses for popular tokens and protocols.\n\n## Additional Information: Helpful Ethereum Address Book\n\nThis address book provides a mapping between common protocol names (just a description, not contract name), token symbols, and their on-chain addresses.\n\n### Tokens\n| Name / Symbol | Contract Address |\n| :--- | :--- |\n| **USDT** | `0xdAC17F958D2ee523a2206206994597C13D831ec7` |\n"));
        assert!(md.ends_with(
            "| **zkSync_Era_L1_DiamondProxy** | `0x32400084C286CF3E17e7B677ea9583e60a000324` |\n\n"
        ));
        let sections: Vec<&str> = PAPER_BOOK.iter().map(|s| s.0).collect();
        assert_eq!(
            sections,
            [
                "Tokens",
                "DEX / Routers",
                "Lending / Staking",
                "NFT",
                "Bridges / Infrastructure"
            ]
        );
        // Every B.3 address is a valid address, and where Crucible's book has the same contract,
        // the same one.
        let book = crate::AddressBook::builtin();
        for (name, address) in paper_book_rows() {
            let a =
                crate::value::parse_address(&json!(address)).unwrap_or_else(|| panic!("{name}"));
            // Crucible's book has Across's current spoke pool (0x5c7BCd6E…); B.3 prints another
            // address. The paper prompt shows B.3's; no generated instance calls either.
            match book.by_name(name) {
                Some(e) if name == "Across_Spoke_Pool" => assert_ne!(e.address, a),
                Some(e) => assert_eq!(e.address, a, "{name}"),
                None => {}
            }
        }
        let inst = Instance {
            id: "x".into(),
            intent: "Wrap 1 ETH".into(),
            ground_truth: Truth::Single(call(json!(0))),
            metadata: Metadata::default(),
        };
        let p = direct_prompt(&inst);
        assert_eq!(p.system, format!("{SINGLE_STEP_INSTRUCTION}\n{md}"));
        assert_eq!(p.user, "User intent:\nWrap 1 ETH");
    }
}
