#include <stdio.h>
#include "util.h"

static int counter;

/* Adds two numbers. */
int add(int a, int b)
{
    return a + b;
}

struct node *make_node(int v)
{
    if (v < 0) {
        return NULL;
    }
    return alloc(v);
}

int add(double a, double b);

void Widget::draw(int x) {
    paint(x);
}
