package demo;

import java.util.List;

/**
 * Entry point.
 */
public class Main {
    @Override
    public String toString() {
        return "Main";
    }

    public static void main(String[] args) {
        System.out.println(new Main());
    }

    private static final int LIMIT = compute(3);
}
