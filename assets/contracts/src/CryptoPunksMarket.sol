// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title CryptoPunksMarket
/// @notice Stand-in for the CryptoPunks market at 0xb47e3cd837dDF8e4c57F05d70Ab865de6e193BBB with the original
/// function signatures and semantics: punks 0..=99 are assigned to `holder` at deployment (the others have no owner),
/// `transferPunk`, `offerPunkForSale`, `offerPunkForSaleToAddress`, `punkNoLongerForSale`, `buyPunk`,
/// `enterBidForPunk`, `acceptBidForPunk`, `withdrawBidForPunk`, `withdraw` (sale proceeds are credited to
/// `pendingWithdrawals` and pulled with `withdraw`). Reverts carry a message instead of the original bare `throw`.
/// Storage: 0 name, 1 symbol, 2 decimals, 3 totalSupply, 4 allPunksAssigned, 5 punkIndexToAddress, 6 balanceOf,
/// 7 punksOfferedForSale, 8 punkBids, 9 pendingWithdrawals.
contract CryptoPunksMarket {
    struct Offer {
        bool isForSale;
        uint256 punkIndex;
        address seller;
        uint256 minValue; // in wei
        address onlySellTo; // zero = anyone
    }

    struct Bid {
        bool hasBid;
        uint256 punkIndex;
        address bidder;
        uint256 value;
    }

    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    bool public allPunksAssigned;
    mapping(uint256 => address) public punkIndexToAddress;
    mapping(address => uint256) public balanceOf;
    mapping(uint256 => Offer) public punksOfferedForSale;
    mapping(uint256 => Bid) public punkBids;
    mapping(address => uint256) public pendingWithdrawals;

    event Assign(address indexed to, uint256 punkIndex);
    event Transfer(address indexed from, address indexed to, uint256 value);
    event PunkTransfer(address indexed from, address indexed to, uint256 punkIndex);
    event PunkOffered(uint256 indexed punkIndex, uint256 minValue, address indexed toAddress);
    event PunkBidEntered(uint256 indexed punkIndex, uint256 value, address indexed fromAddress);
    event PunkBidWithdrawn(uint256 indexed punkIndex, uint256 value, address indexed fromAddress);
    event PunkBought(uint256 indexed punkIndex, uint256 value, address indexed fromAddress, address indexed toAddress);
    event PunkNoLongerForSale(uint256 indexed punkIndex);

    constructor(address holder) {
        require(holder != address(0), "CryptoPunksMarket: holder is the zero address");
        name = "CRYPTOPUNKS";
        symbol = unicode"Ͼ";
        decimals = 0;
        totalSupply = 10000;
        allPunksAssigned = true;
        for (uint256 i = 0; i < 100; i++) {
            punkIndexToAddress[i] = holder;
            emit Assign(holder, i);
        }
        balanceOf[holder] = 100;
    }

    modifier validPunk(uint256 punkIndex) {
        require(punkIndex < 10000, "CryptoPunksMarket: punk index out of range");
        _;
    }

    modifier onlyPunkOwner(uint256 punkIndex) {
        require(punkIndex < 10000, "CryptoPunksMarket: punk index out of range");
        require(punkIndexToAddress[punkIndex] == msg.sender, "CryptoPunksMarket: caller does not own this punk");
        _;
    }

    function transferPunk(address to, uint256 punkIndex) external onlyPunkOwner(punkIndex) {
        if (punksOfferedForSale[punkIndex].isForSale) _noLongerForSale(punkIndex);
        punkIndexToAddress[punkIndex] = to;
        balanceOf[msg.sender]--;
        balanceOf[to]++;
        emit Transfer(msg.sender, to, 1);
        emit PunkTransfer(msg.sender, to, punkIndex);
        // A bid from the new owner is refunded (as in the original contract).
        Bid storage bid = punkBids[punkIndex];
        if (bid.bidder == to) {
            pendingWithdrawals[to] += bid.value;
            punkBids[punkIndex] = Bid(false, punkIndex, address(0), 0);
        }
    }

    function punkNoLongerForSale(uint256 punkIndex) external onlyPunkOwner(punkIndex) {
        _noLongerForSale(punkIndex);
    }

    function offerPunkForSale(uint256 punkIndex, uint256 minSalePriceInWei) external onlyPunkOwner(punkIndex) {
        punksOfferedForSale[punkIndex] = Offer(true, punkIndex, msg.sender, minSalePriceInWei, address(0));
        emit PunkOffered(punkIndex, minSalePriceInWei, address(0));
    }

    function offerPunkForSaleToAddress(uint256 punkIndex, uint256 minSalePriceInWei, address toAddress)
        external
        onlyPunkOwner(punkIndex)
    {
        punksOfferedForSale[punkIndex] = Offer(true, punkIndex, msg.sender, minSalePriceInWei, toAddress);
        emit PunkOffered(punkIndex, minSalePriceInWei, toAddress);
    }

    function buyPunk(uint256 punkIndex) external payable validPunk(punkIndex) {
        Offer memory offer = punksOfferedForSale[punkIndex];
        require(offer.isForSale, "CryptoPunksMarket: punk is not for sale");
        require(offer.onlySellTo == address(0) || offer.onlySellTo == msg.sender, "CryptoPunksMarket: punk is reserved for another buyer");
        require(msg.value >= offer.minValue, "CryptoPunksMarket: not enough ether sent");
        address seller = offer.seller;
        require(seller == punkIndexToAddress[punkIndex], "CryptoPunksMarket: seller no longer owns this punk");
        require(seller != msg.sender, "CryptoPunksMarket: caller already owns this punk");

        punkIndexToAddress[punkIndex] = msg.sender;
        balanceOf[seller]--;
        balanceOf[msg.sender]++;
        emit Transfer(seller, msg.sender, 1);

        _noLongerForSale(punkIndex);
        pendingWithdrawals[seller] += msg.value;
        emit PunkBought(punkIndex, msg.value, seller, msg.sender);

        Bid storage bid = punkBids[punkIndex];
        if (bid.bidder == msg.sender) {
            pendingWithdrawals[msg.sender] += bid.value;
            punkBids[punkIndex] = Bid(false, punkIndex, address(0), 0);
        }
    }

    function withdraw() external {
        uint256 amount = pendingWithdrawals[msg.sender];
        require(amount > 0, "CryptoPunksMarket: nothing to withdraw");
        pendingWithdrawals[msg.sender] = 0;
        (bool ok,) = payable(msg.sender).call{value: amount}("");
        require(ok, "CryptoPunksMarket: ether transfer failed");
    }

    function enterBidForPunk(uint256 punkIndex) external payable validPunk(punkIndex) {
        address punkOwner = punkIndexToAddress[punkIndex];
        require(punkOwner != address(0), "CryptoPunksMarket: punk has no owner");
        require(punkOwner != msg.sender, "CryptoPunksMarket: caller owns this punk");
        require(msg.value > 0, "CryptoPunksMarket: bid must be greater than zero");
        Bid memory existing = punkBids[punkIndex];
        require(msg.value > existing.value, "CryptoPunksMarket: bid must exceed the current bid");
        if (existing.value > 0) pendingWithdrawals[existing.bidder] += existing.value;
        punkBids[punkIndex] = Bid(true, punkIndex, msg.sender, msg.value);
        emit PunkBidEntered(punkIndex, msg.value, msg.sender);
    }

    function acceptBidForPunk(uint256 punkIndex, uint256 minPrice) external onlyPunkOwner(punkIndex) {
        Bid memory bid = punkBids[punkIndex];
        require(bid.hasBid && bid.value > 0, "CryptoPunksMarket: punk has no bid");
        require(bid.value >= minPrice, "CryptoPunksMarket: bid is below the minimum price");
        address seller = msg.sender;
        punkIndexToAddress[punkIndex] = bid.bidder;
        balanceOf[seller]--;
        balanceOf[bid.bidder]++;
        emit Transfer(seller, bid.bidder, 1);
        punksOfferedForSale[punkIndex] = Offer(false, punkIndex, bid.bidder, 0, address(0));
        punkBids[punkIndex] = Bid(false, punkIndex, address(0), 0);
        pendingWithdrawals[seller] += bid.value;
        emit PunkBought(punkIndex, bid.value, seller, bid.bidder);
    }

    function withdrawBidForPunk(uint256 punkIndex) external validPunk(punkIndex) {
        Bid memory bid = punkBids[punkIndex];
        require(bid.hasBid && bid.bidder == msg.sender, "CryptoPunksMarket: caller has no bid on this punk");
        punkBids[punkIndex] = Bid(false, punkIndex, address(0), 0);
        emit PunkBidWithdrawn(punkIndex, bid.value, msg.sender);
        (bool ok,) = payable(msg.sender).call{value: bid.value}("");
        require(ok, "CryptoPunksMarket: ether transfer failed");
    }

    function _noLongerForSale(uint256 punkIndex) private {
        punksOfferedForSale[punkIndex] = Offer(false, punkIndex, msg.sender, 0, address(0));
        emit PunkNoLongerForSale(punkIndex);
    }
}
