<?php

namespace App\Shop;

use App\Models\Item;

/**
 * Cart holds items.
 */
class Cart implements Countable
{
    private array $items = [];

    /** Adds an item. */
    public function add(Item $item): void
    {
        $this->items[] = $item;
    }

    public function count(): int
    {
        return count($this->items);
    }
}

/** Things that can be priced. */
interface Priced
{
    public function price(): int;
}

trait Discount
{
    public function discount(int $p): int
    {
        return $p - 1;
    }
}

enum Status: string
{
    case Open = 'open';
    case Paid = 'paid';
}

/** Formats money. */
function money(int $cents): string
{
    return sprintf('%.2f', $cents / 100);
}

echo money(100);
