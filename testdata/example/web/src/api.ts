// Client for the inventory HTTP API.
export interface Item {
  SKU: string;
  Name: string;
  Quantity: number;
}

export async function listItems(base: string): Promise<Item[]> {
  const res = await fetch(`${base}/items`);
  if (!res.ok) {
    throw new Error(`listing items failed: ${res.status}`);
  }
  return (await res.json()) as Item[];
}
