/* list.c: a linked list. */
#include <stdio.h>
#include <stdlib.h>

#define MAX 10

/* A node of the list. */
struct node {
	int value;
	struct node *next;
};

typedef struct {
	struct node *head;
	int len;
} list;

/* Colors. */
enum color { RED, GREEN };

static int count;

/* push adds a value in front. */
void push(list *l, int v)
{
	struct node *n = malloc(sizeof *n);
	n->value = v;
	n->next = l->head;
	l->head = n;
	l->len++;
}

/* find returns the node holding v. */
static struct node *find(list *l, int v)
{
	for (struct node *n = l->head; n; n = n->next)
		if (n->value == v)
			return n;
	return NULL;
}

int len(list *l);

int main(void)
{
	list l = {0};
	push(&l, 1);
	printf("%d\n", find(&l, 1) != NULL);
	return 0;
}
