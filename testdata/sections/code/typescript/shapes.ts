import { Logger } from "./logger";

/** Shape is anything with an area. */
export interface Shape {
  area(): number;
  name?: string;
}

export type Point = { x: number; y: number };

/** Colors we know. */
export enum Color {
  Red,
  Green,
}

/**
 * Circle is a round shape.
 */
export class Circle implements Shape {
  private radius: number;

  constructor(radius: number) {
    this.radius = radius;
  }

  /** area computes the area. */
  area(): number {
    return Math.PI * this.radius ** 2;
  }

  scale(f: number): Circle;
  scale(f: number, g: number): Circle;
  scale(f: number, g?: number): Circle {
    return new Circle(this.radius * f * (g ?? 1));
  }
}

export abstract class Base {
  abstract describe(): string;
}

export namespace Geometry {
  export function distance(a: Point, b: Point): number {
    return Math.hypot(a.x - b.x, a.y - b.y);
  }
}

export const unit = (): Circle => new Circle(1);

declare function external(x: number): void;

const log = new Logger();
