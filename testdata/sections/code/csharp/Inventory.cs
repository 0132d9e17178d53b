using System;
using System.Collections.Generic;

namespace Shop.Stock
{
    /// <summary>Inventory tracks items.</summary>
    public class Inventory : IInventory
    {
        private readonly Dictionary<string, int> counts = new();

        public int Total { get; private set; }

        /// <summary>Adds items.</summary>
        public void Add(string sku, int n)
        {
            counts[sku] = Count(sku) + n;
            Total += n;
        }

        public int Count(string sku) => counts.TryGetValue(sku, out var n) ? n : 0;

        public Inventory()
        {
        }
    }

    /// <summary>What an inventory does.</summary>
    public interface IInventory
    {
        void Add(string sku, int n);
    }

    public enum Unit { Piece, Box }

    public struct Item
    {
        public string Sku;
    }

    public record Sku(string Code);
}
