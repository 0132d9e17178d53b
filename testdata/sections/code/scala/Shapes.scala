package shapes

import scala.math.Pi

/** Shape has an area. */
trait Shape {
  def area: Double
  def describe(): String = s"shape with area $area"
}

/** A circle. */
class Circle(r: Double) extends Shape {
  val radius: Double = r

  /** Area of the circle. */
  def area: Double = Pi * r * r

  def scale(f: Double): Circle = {
    new Circle(r * f)
  }
}

case class Square(side: Double) extends Shape {
  def area: Double = side * side
}

object Shapes {
  def unit(): Circle = new Circle(1)
}

enum Color {
  case Red, Green
}

def total(shapes: Seq[Shape]): Double = shapes.map(_.area).sum
