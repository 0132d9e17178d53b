import { h } from "./h";

export interface Props {
  title: string;
}

export default class View {
  constructor(private props: Props) {}

  async render(): Promise<string> {
    return h(this.props.title);
  }

  get size(): number {
    return 1;
  }
}

export type Maybe<T> = T | null;
