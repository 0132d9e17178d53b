#include <string>
#include <vector>

namespace geo {

/// Shape is the base of all shapes.
class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;

    /// name describes the shape.
    std::string name() const {
        return "shape";
    }

private:
    int id_;
};

/// Square has a side.
struct Square : Shape {
    double side;
    double area() const override { return side * side; }
};

enum class Color { Red, Green };

/// Computes the total area.
template <typename T>
double total(const std::vector<T>& shapes) {
    double sum = 0;
    for (const auto& s : shapes) sum += s.area();
    return sum;
}

// Circle's area, defined out of line.
double Circle::area() const {
    return 3.14159 * r * r;
}

}  // namespace geo

int main() {
    geo::Square s;
    return 0;
}
