package com.example.bank;

import java.util.ArrayList;
import java.util.List;

/**
 * Account holds a balance.
 */
@Entity
public class Account implements Comparable<Account> {
    private final String id;
    private long balance;

    /** Creates an account. */
    public Account(String id) {
        this.id = id;
    }

    /**
     * Deposits money.
     * @param amount cents
     */
    public void deposit(long amount) {
        balance += amount;
    }

    public void deposit(int amount) {
        deposit((long) amount);
    }

    @Override
    public int compareTo(Account o) {
        return Long.compare(balance, o.balance);
    }

    /** Kind of account. */
    public enum Kind {
        CHECKING,
        SAVINGS;

        boolean isSavings() {
            return this == SAVINGS;
        }
    }
}

/** Ledger records entries. */
interface Ledger {
    void record(Account a, long amount);

    default int size() {
        return 0;
    }
}

record Entry(String account, long amount) {}
