import React, { useState } from "react";

/** Props of the button. */
interface ButtonProps {
  label: string;
  onPress?: () => void;
}

/** Button renders a clickable label. */
export function Button({ label, onPress }: ButtonProps) {
  const [count, setCount] = useState(0);
  return <button onClick={() => setCount(count + 1)}>{label}</button>;
}

export const Badge = ({ n }: { n: number }) => <span className="badge">{n}</span>;

export class Panel extends React.Component<ButtonProps> {
  state = { open: false };

  /** Toggle flips the panel. */
  toggle() {
    this.setState({ open: !this.state.open });
  }

  render() {
    return <div>{this.props.label}</div>;
  }
}

export default Button;
