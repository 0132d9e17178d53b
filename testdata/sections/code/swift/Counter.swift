import Foundation

/// Counter counts things.
class Counter: Countable {
    private var value = 0

    /// Creates a counter.
    init(start: Int) {
        value = start
    }

    /// Increments by one.
    func increment() -> Int {
        value += 1
        return value
    }
}

/// Countable things.
protocol Countable {
    func increment() -> Int
}

struct Point {
    var x: Double
    var y: Double

    func length() -> Double {
        return (x * x + y * y).squareRoot()
    }
}

enum Direction {
    case north, south
}

extension Point {
    func scaled(by f: Double) -> Point {
        return Point(x: x * f, y: y * f)
    }
}

/// Adds two numbers.
func add(_ a: Int, _ b: Int) -> Int {
    return a + b
}

print(add(1, 2))
