//! The proper layered graph: long edges are cut into one-layer segments by dummy nodes, as in
//! Sugiyama, Tagawa & Toda, "Methods for Visual Understanding of Hierarchical System
//! Structures", IEEE SMC 11(2), 1981. Crossing reduction and coordinate assignment work on it.

use super::adjacency::csr;

/// A layered graph whose edges all join consecutive layers. Nodes `0..n_real` are the input
/// nodes (local numbering), the rest are dummies.
pub(crate) struct Proper {
    pub n_real: usize,
    /// Layer of each node, 0-based and local.
    pub layer: Vec<u32>,
    /// Extent across the layers; 0 for dummies.
    pub size: Vec<f64>,
    up_off: Vec<u32>,
    up: Vec<u32>,
    down_off: Vec<u32>,
    down: Vec<u32>,
    /// Nodes of each layer, in drawing order.
    pub layers: Vec<Vec<u32>>,
    /// Index of each node inside its layer.
    pub pos: Vec<u32>,
    chain_off: Vec<u32>,
    chain: Vec<u32>,
}

impl Proper {
    /// Builds the proper graph. `edges` are (u, v) in input numbering; an edge whose ends lie
    /// in the same layer gets no segments (it is drawn straight), others are cut at every
    /// layer they cross. Layers start in node index order.
    pub fn build(layer: &[u32], size: &[f64], edges: &[(u32, u32)]) -> Proper {
        let n_real = layer.len();
        let mut layer = layer.to_vec();
        let mut size = size.to_vec();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
        let mut chain_off = Vec::with_capacity(edges.len() + 1);
        let mut chain = Vec::with_capacity(edges.len() * 2);
        chain_off.push(0u32);
        for &(u, v) in edges {
            let (a, b) = if layer[u as usize] <= layer[v as usize] { (u, v) } else { (v, u) };
            let (la, lb) = (layer[a as usize], layer[b as usize]);
            if la != lb {
                chain.push(a);
                let mut prev = a;
                for l in la + 1..lb {
                    let d = layer.len() as u32;
                    layer.push(l);
                    size.push(0.0);
                    pairs.push((prev, d));
                    chain.push(d);
                    prev = d;
                }
                pairs.push((prev, b));
                chain.push(b);
            }
            chain_off.push(chain.len() as u32);
        }
        let n = layer.len();
        let (down_off, down) = csr(n, pairs.iter().copied());
        let (up_off, up) = csr(n, pairs.iter().map(|&(u, v)| (v, u)));
        let depth = layer.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut layers = vec![Vec::new(); depth];
        for (v, &l) in layer.iter().enumerate() {
            layers[l as usize].push(v as u32);
        }
        let mut p = Proper {
            n_real,
            layer,
            size,
            up_off,
            up,
            down_off,
            down,
            layers,
            pos: vec![0; n],
            chain_off,
            chain,
        };
        p.refresh_pos();
        p
    }

    /// Number of nodes, dummies included.
    pub fn len(&self) -> usize {
        self.layer.len()
    }

    pub fn is_dummy(&self, v: u32) -> bool {
        v as usize >= self.n_real
    }

    /// Neighbours in the layer above.
    pub fn ups(&self, v: u32) -> &[u32] {
        &self.up[self.up_off[v as usize] as usize..self.up_off[v as usize + 1] as usize]
    }

    /// Neighbours in the layer below.
    pub fn downs(&self, v: u32) -> &[u32] {
        &self.down[self.down_off[v as usize] as usize..self.down_off[v as usize + 1] as usize]
    }

    /// Nodes of input edge `e` from its upper end to its lower end (empty for flat edges).
    pub fn chain(&self, e: usize) -> &[u32] {
        &self.chain[self.chain_off[e] as usize..self.chain_off[e + 1] as usize]
    }

    /// Recomputes `pos` from `layers`.
    pub fn refresh_pos(&mut self) {
        for layer in &self.layers {
            for (i, &v) in layer.iter().enumerate() {
                self.pos[v as usize] = i as u32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_edges_get_one_dummy_per_crossed_layer() {
        let p = Proper::build(&[0, 1, 3], &[10.0, 10.0, 10.0], &[(0, 1), (0, 2), (2, 1)]);
        assert_eq!(p.len(), 3 + 2 + 1);
        assert_eq!(p.chain(1).len(), 4);
        assert_eq!(p.chain(2), &[1, 5, 2]); // reversed edge runs upper to lower
        for v in 0..p.len() as u32 {
            for &w in p.downs(v) {
                assert_eq!(p.layer[w as usize], p.layer[v as usize] + 1);
            }
        }
    }
}
