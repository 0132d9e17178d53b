require "json"

module Shop
  # A widget for sale.
  class Widget
    def initialize(name)
      @name = name
    end

    def self.build(attrs)
      new(attrs[:name])
    end

    def sold?
      false
    end
  end
end
