// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Enumerable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title PancakeSquad
/// @notice BSC profile stand-in for the PancakeSquad ERC-721 at 0x0a8901b0E25DEb55A87524f0cC164E9644020EBA:
/// "Pancake Squad"/"PS", enumerable like the original (`totalSupply`, `tokenByIndex`, `tokenOfOwnerByIndex`), ids
/// 1..=20 minted to `holder`. Full ERC-721 (OpenZeppelin): both `safeTransferFrom` overloads call
/// `onERC721Received` on contract recipients.
contract PancakeSquad is ERC721Enumerable {
    constructor(address holder) ERC721("Pancake Squad", "PS") {
        for (uint256 id = 1; id <= 20; id++) {
            _mint(holder, id);
        }
    }

    function _baseURI() internal pure override returns (string memory) {
        return "ipfs://QmPancakeSquad/";
    }
}

/// @title ERC721NFT
/// @notice QuestBench test ERC-721: "NFT Collection"/"NFT", ids 1..=10 minted to `holder`,
/// `tokenURI(id)` = "ipfs://QmTest/<id>".
contract ERC721NFT is ERC721 {
    constructor(address holder) ERC721("NFT Collection", "NFT") {
        for (uint256 id = 1; id <= 10; id++) {
            _mint(holder, id);
        }
    }

    function _baseURI() internal pure override returns (string memory) {
        return "ipfs://QmTest/";
    }
}

/// @title CrucibleNFT
/// @notice Ethereum profile generic ERC-721 collection: "Crucible NFT"/"CNFT", ids 1..=20 minted to `holder`.
contract CrucibleNFT is ERC721 {
    constructor(address holder) ERC721("Crucible NFT", "CNFT") {
        for (uint256 id = 1; id <= 20; id++) {
            _mint(holder, id);
        }
    }

    function _baseURI() internal pure override returns (string memory) {
        return "ipfs://crucible-nft/";
    }
}

/// @title TestERC1155Token
/// @notice QuestBench test ERC-1155 "Test Multi Token": id 1 = 1000, id 2 = 500, id 3 = 100 minted to `holder`.
/// OpenZeppelin ERC1155, so transfers to contracts call the ERC-1155 receiver hooks.
contract TestERC1155Token is ERC1155 {
    string public constant name = "Test Multi Token";
    string public constant symbol = "TMT";

    constructor(address holder) ERC1155("ipfs://QmTest1155/{id}.json") {
        _mint(holder, 1, 1000, "");
        _mint(holder, 2, 500, "");
        _mint(holder, 3, 100, "");
    }
}

/// @title CrucibleItems
/// @notice Ethereum profile generic ERC-1155 collection "Crucible Items": ids 1..=5 minted to `holder` with amounts
/// 1000, 500, 100, 10, 1.
contract CrucibleItems is ERC1155 {
    string public constant name = "Crucible Items";
    string public constant symbol = "CITEM";

    constructor(address holder) ERC1155("ipfs://crucible-items/{id}.json") {
        _mint(holder, 1, 1000, "");
        _mint(holder, 2, 500, "");
        _mint(holder, 3, 100, "");
        _mint(holder, 4, 10, "");
        _mint(holder, 5, 1, "");
    }
}
