defmodule Bank.Account do
  @moduledoc """
  Accounts hold money.
  """

  alias Bank.Ledger

  defstruct balance: 0

  @doc """
  Deposits an amount.
  """
  @spec deposit(t, integer) :: t
  def deposit(%__MODULE__{} = acc, amount) when amount > 0 do
    %{acc | balance: acc.balance + amount}
  end

  def balance(acc), do: acc.balance

  # A private helper.
  defp log(msg) do
    Ledger.write(msg)
  end

  defmacro debug(expr) do
    quote do: IO.inspect(unquote(expr))
  end
end

defprotocol Bank.Printable do
  def print(value)
end
