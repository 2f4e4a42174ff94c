"""`Registry`: the one named actor of a distributed run on a Ray cluster. It hands out node ids
and tells each node who its peers are: within one launch by its topology (mesh: everyone; star:
the launch's first node and the rest; alone: nobody), and across launches (a later `ditask
--attach-to/--address` on the same cluster) everyone. It also keeps small key/value entries,
e.g. the learners' torch.distributed rendezvous address."""
from typing import Any, Dict, List, Optional

NAME, NAMESPACE = 'ding_registry', 'ding'


class Registry:

    def __init__(self) -> None:
        self._nodes: Dict[int, Dict[str, Any]] = {}
        self._launches = 0
        self._kv: Dict[str, Any] = {}

    def new_launch(self) -> int:
        self._launches += 1
        return self._launches

    def allocate(self, n: int, requested: Optional[List[int]] = None) -> List[int]:
        """`requested`: explicit ids, or one start id; else the next free ids."""
        if requested:
            ids = list(requested) if len(requested) > 1 else list(range(requested[0], requested[0] + n))
            if len(ids) != n:
                raise ValueError(f'{n} workers need {n} node ids, got {requested}')
            taken = sorted(set(ids) & set(self._nodes))
            if taken:
                raise ValueError(f'node ids {taken} are already in use on this cluster')
            return ids
        start = max(self._nodes, default=-1) + 1
        return list(range(start, start + n))

    def register(self, launch_id: int, topology: str, nodes: Dict[int, Any]) -> None:
        for node_id, handle in nodes.items():
            self._nodes[node_id] = dict(launch=launch_id, topology=topology, handle=handle)

    def unregister(self, node_ids: List[int]) -> None:
        for node_id in node_ids:
            self._nodes.pop(node_id, None)

    def peers_of(self, node_id: int) -> Dict[int, Any]:
        me = self._nodes.get(node_id)
        if me is None:
            return {}
        same = sorted(k for k, v in self._nodes.items() if v['launch'] == me['launch'])
        peers = {}
        for other, entry in self._nodes.items():
            if other == node_id:
                continue
            if entry['launch'] != me['launch']:
                peers[other] = entry['handle']
            elif me['topology'] == 'mesh' or (me['topology'] == 'star' and same[0] in (node_id, other)):
                peers[other] = entry['handle']
        return peers

    def nodes(self) -> Dict[int, Any]:
        """{node id: actor handle} of every node on the cluster (for operators: `ray.kill` one)."""
        return {k: v['handle'] for k, v in self._nodes.items()}

    def set_roles(self, node_id: int, roles: List[str]) -> None:
        if node_id in self._nodes:
            self._nodes[node_id]['roles'] = sorted(roles)

    def roles_of(self, node_id: int) -> List[str]:
        return self._nodes.get(node_id, {}).get('roles', [])

    def put(self, key: str, value: Any) -> None:
        self._kv[key] = value

    def get(self, key: str) -> Any:
        return self._kv.get(key)
