'use strict';
const express = require('express');

// Handles GET /.
export async function index(req, res) {
  res.send('ok');
}

export const handler = async (event) => {
  return index(event);
};

class Router {
  route(path) {
    return path;
  }
}

describe('router', () => {
  it('routes', () => {});
});
