terraform {
  required_version = ">= 1.5"
}

# The AWS provider.
provider "aws" {
  region = var.region
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

# Web server.
resource "aws_instance" "web" {
  ami           = "ami-123"
  instance_type = "t3.micro"

  tags = {
    Name = "web"
  }
}

locals {
  env = "prod"
}

output "ip" {
  value = aws_instance.web.public_ip
}
